/**
 * The recent turns of a Claude Code session, read from the tail of its JSONL transcript. A transcript
 * grows for the whole session (tool output included), so it is read backwards in chunks and only until
 * enough messages are found, never whole. Entry shapes (one JSON object per line): `type` "user" with
 * `message.content` a string or blocks (text, tool_result, image), `type` "assistant" with content blocks
 * (text, thinking, tool_use), and bookkeeping entries (summary, system, attachment, snapshots) we skip.
 * A missing or unreadable transcript is no history, never an error.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { openPlain } from "../plain-file.ts";
import { typedText } from "../recall/typed-text.ts";
import type { Turn } from "../recall/types.ts";

export interface TailOptions {
  /** How many messages (user + assistant) to return at most, newest last. */
  messages: number;
  /** Stop reading after this many bytes from the end (default 4 MiB). */
  maxBytes?: number;
  /** Lines longer than this are skipped unread (default 1 MiB): no one types a message that long. */
  maxLineBytes?: number;
  /** Text transform applied to every message (e.g. stripping our own injected blocks). */
  clean?: (text: string) => string;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;
/** Lines that span chunks and are at least this long are checked for being tool output first. */
const LONG_LINE = 16 * 1024;
/** How far into a long line its content is looked for (past uuids, cwd, session id, version). */
const PREFIX = 4096;
/**
 * How a tool-result entry begins its content, as Claude Code writes it (compact JSON). Inside a JSON
 * string every quote is escaped, so these bytes only occur as structure, never in typed text.
 */
const TOOL_RESULT_STARTS = ['"content":[{"tool_use_id"', '"content":[{"type":"tool_result"'].map((s) =>
  Buffer.from(s),
);

export function readTranscriptTail(file: string | undefined, opts: TailOptions): Turn[] {
  if (file === undefined || opts.messages <= 0) return [];
  let fd: number;
  try {
    // Never a FIFO or a device, which would hang the hook past Claude Code's timeout.
    fd = openPlain(file, { allowLinks: true });
  } catch {
    return [];
  }
  try {
    return readTail(fd, opts);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/**
 * Walk the file backwards one chunk at a time, looking only for newlines. A line that lies inside the
 * chunk is taken from it; a longer one is read again by its offsets, and only if it could be a message:
 * tool output makes up most of a busy session's bytes, so a line that is too long, or a tool result, is
 * passed over unread, and the messages before a large tool call are still reached. The size is taken
 * once, so a line Claude Code is appending meanwhile is either unseen or torn (and a torn line is skipped).
 */
function readTail(fd: number, opts: TailOptions): Turn[] {
  const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024;
  const maxLine = opts.maxLineBytes ?? 1024 * 1024;
  const size = fstatSync(fd).size;
  const newestFirst: Turn[] = [];
  const chunk = Buffer.allocUnsafe(CHUNK);
  /** The line [start, end) of the file; `chunk` holds [pos, pos + len). True at a compaction boundary. */
  const take = (start: number, end: number, pos: number, len: number): boolean => {
    const inside = start >= pos && end <= pos + len;
    const line = inside ? chunk.subarray(start - pos, end - pos) : readLine(fd, start, end, maxLine);
    if (line === undefined) return false;
    const entry = parseLine(line.toString("utf8"));
    if (entry === "boundary") return true;
    if (entry !== null) push(newestFirst, entry, opts.clean);
    return false;
  };
  let pos = size;
  let lineEnd = size;
  // One message more than asked for, so the oldest returned assistant message is complete after merging.
  while (pos > 0 && size - pos < maxBytes && newestFirst.length <= opts.messages) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    readSync(fd, chunk, 0, len, pos);
    for (
      let i = chunk.lastIndexOf(NEWLINE, len - 1);
      i >= 0;
      i = i > 0 ? chunk.lastIndexOf(NEWLINE, i - 1) : -1
    ) {
      if (take(pos + i + 1, lineEnd, pos, len)) return finish(newestFirst, opts.messages);
      lineEnd = pos + i;
    }
    if (pos === 0) take(0, lineEnd, 0, len);
  }
  return finish(newestFirst, opts.messages);
}

/** Bytes [start, end) of the file, or undefined when the line is too long or a tool result. */
function readLine(fd: number, start: number, end: number, maxLine: number): Buffer | undefined {
  if (end - start > maxLine) return undefined;
  if (end - start >= LONG_LINE) {
    const head = Buffer.allocUnsafe(PREFIX);
    readSync(fd, head, 0, PREFIX, start);
    if (TOOL_RESULT_STARTS.some((s) => head.includes(s))) return undefined;
  }
  const line = Buffer.allocUnsafe(end - start);
  readSync(fd, line, 0, line.length, start);
  return line;
}

function finish(newestFirst: Turn[], limit: number): Turn[] {
  return newestFirst.slice(0, limit).reverse();
}

/** Consecutive assistant entries are one reply split around tool calls: merge them. */
function push(newestFirst: Turn[], turn: Turn, clean?: (text: string) => string): void {
  const text = (clean ? clean(turn.text) : turn.text).trim();
  if (text === "") return;
  const newer = newestFirst[newestFirst.length - 1];
  if (newer && newer.role === "assistant" && turn.role === "assistant") {
    newer.text = `${text}\n${newer.text}`;
    return;
  }
  newestFirst.push({ role: turn.role, text });
}

/**
 * One transcript line as a turn; null when it is not a human or model message; "boundary" at a
 * compaction boundary (what came before it is no longer in the model's context).
 */
export function parseLine(line: string): Turn | null | "boundary" {
  if (line.trim() === "") return null;
  let entry: Record<string, unknown>;
  try {
    const parsed = JSON.parse(line) as unknown;
    if (typeof parsed !== "object" || parsed === null) return null;
    entry = parsed as Record<string, unknown>;
  } catch {
    return null; // a torn or foreign line is skipped
  }
  if (entry.type === "system" && entry.subtype === "compact_boundary") return "boundary";
  if (entry.type !== "user" && entry.type !== "assistant") return null;
  if (entry.isMeta === true || entry.isSidechain === true || entry.isCompactSummary === true) return null;
  const message = entry.message as { content?: unknown } | undefined;
  const text = contentText(message?.content);
  if (text === "") return null;
  if (entry.type === "user") {
    const typed = typedText(text);
    return typed === "" ? null : { role: "user", text: typed };
  }
  return { role: "assistant", text };
}

/** Text blocks only: tool calls, tool results, thinking and images are not conversation. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text") {
      const t = (block as { text?: unknown }).text;
      if (typeof t === "string") parts.push(t);
    }
  }
  return parts.join("\n");
}
