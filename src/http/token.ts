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
