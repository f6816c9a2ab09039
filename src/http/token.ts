/** Token checks that do not leak, through timing, how much of a guess was right. */

import { timingSafeEqual } from "node:crypto";

const encoder = new TextEncoder();

/**
 * Constant-time string comparison. Both sides are hashed first so that neither the content nor the
 * length of the expected value shapes the time taken.
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = new Bun.CryptoHasher("sha256").update(encoder.encode(given)).digest();
  const b = new Bun.CryptoHasher("sha256").update(encoder.encode(expected)).digest();
  return timingSafeEqual(a, b);
}

/** True when no token is configured, or the request carries the right one in `header`. */
export function tokenMatches(req: Request, header: string, expected: string | undefined): boolean {
  if (expected === undefined || expected === "") return true;
  const given = req.headers.get(header);
  return given !== null && safeEqual(given, expected);
}
