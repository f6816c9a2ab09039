/**
 * The lines of stdin, as the MCP stdio transport frames messages (one JSON-RPC message per line), with
 * a cap on each: the SDK's reader throws past 10 MiB and its transport then closes, so one oversized
 * message ended the server without a word on stderr and every later call failed. Here a line over the
 * cap is never buffered whole: its bytes are dropped as they come (only its first and last kilobyte are
 * kept, to find its id), it is answered with a JSON-RPC error (-32600, Invalid Request) naming the cap,
 * and the server goes on reading the next line. https://www.jsonrpc.org/specification#error_object
 */
import { Readable } from "node:stream";

/** The most one message may take, in bytes (the SDK's own default reader cap). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const KEEP = 1024;
const NEWLINE = 0x0a;

type Id = string | number | null;

/**
 * A request's id, from the start or the end of its text: clients write `"id"` before or after
 * `params` (the official SDK after). Null when neither shows one (JSON-RPC's id for an unknown one).
 */
export function idOf(head: string, tail: string): Id {
  const first = /^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head);
  const last = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as Id;
  } catch {
    return null;
  }
}

export function oversizedAnswer(id: Id, bytes: number, max = MAX_MESSAGE_BYTES): string {
  const mib = max / 1024 / 1024;
  const message = `the message is ${bytes} bytes, more than the ${mib} MiB a message may take; it was not read`;
  return `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } })}\n`;
}

/**
 * `input`'s complete lines of at most `max` bytes, as a stream for the transport; each longer line is
 * answered through `answer` and left out.
 */
export function cappedLines(
  input: NodeJS.ReadableStream,
  answer: (line: string) => void,
  max = MAX_MESSAGE_BYTES,
): Readable {
  let parts: Buffer[] = [];
  let size = 0;
  /** While a line is being dropped: its size so far and its kept ends. */
  let dropping: { bytes: number; head: string; tail: Buffer } | null = null;
  const out = new Readable({ read() {} });

  const take = (bytes: Buffer) => {
    if (dropping) {
      dropping.bytes += bytes.length;
      dropping.tail = Buffer.concat([dropping.tail, bytes]).subarray(-KEEP);
      return;
    }
    if (size + bytes.length <= max) {
      parts.push(bytes);
      size += bytes.length;
      return;
    }
    const all = Buffer.concat([...parts, bytes]);
    dropping = { bytes: all.length, head: all.subarray(0, KEEP).toString("utf8"), tail: all.subarray(-KEEP) };
    parts = [];
    size = 0;
  };
  const endLine = () => {
    if (dropping) {
      answer(oversizedAnswer(idOf(dropping.head, dropping.tail.toString("utf8")), dropping.bytes, max));
      dropping = null;
      return;
    }
    parts.push(Buffer.from([NEWLINE]));
    out.push(Buffer.concat(parts));
    parts = [];
    size = 0;
  };

  input.on("data", (chunk: Buffer | string) => {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE)) {
      take(bytes.subarray(0, at));
      endLine();
      bytes = bytes.subarray(at + 1);
    }
    if (bytes.length > 0) take(bytes);
  });
  input.on("end", () => out.push(null));
  input.on("error", (err) => out.destroy(err as Error));
  return out;
}
