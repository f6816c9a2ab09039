/**
 * Request bodies: JSON only, read with a hard size cap so a client cannot make the server buffer an
 * unbounded upload (the declared Content-Length is checked first, then the bytes actually received).
 */
import { describeError, LoreError } from "../errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-depth.ts";
import { nsFromIso } from "../wire.ts";

export async function readBytes(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (req.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(limit: number): LoreError {
  return new LoreError("too_large", `the request body is over the limit of ${limit} bytes`);
}

/** The body as a JSON object; anything else is `invalid_input`. */
export async function readJsonObject(req: Request, limit: number): Promise<Record<string, unknown>> {
  return jsonObject(await readBytes(req, limit));
}

/** UTF-8 bytes holding one JSON object; anything else is `invalid_input`. */
export function jsonObject(bytes: Uint8Array): Record<string, unknown> {
  // Measured before parsing: deeper values overflow the stack of the card writer (json-depth.ts).
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw new LoreError("invalid_input", `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new LoreError("invalid_input", `the request body is not valid JSON: ${describeError(err)}`, {
      cause: err,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new LoreError("invalid_input", "the request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * A write's precondition `mtime`, as the card's nanoseconds: the ISO 8601 string the API gave (or
 * the bare digits earlier versions gave); undefined when the body has none.
 */
export function mtimeOf(input: Record<string, unknown>): string | undefined {
  if (input.mtime === undefined || input.mtime === null) return undefined;
  const ns = typeof input.mtime === "string" ? nsFromIso(input.mtime) : null;
  if (ns === null)
    throw new LoreError("invalid_input", "mtime must be the card's mtime as read (an ISO 8601 string)");
  return ns;
}
