/**
 * The recent turns of a Claude Code session, read from the tail of its JSONL transcript. A transcript
 * grows for the whole session (tool output included), so it is read backwards in chunks and only until
 * enough messages are found, never whole. Entry shapes (one JSON object per line): `type` "user" with
 * `message.content` a string or blocks (text, tool_result, image), `type` "assistant" with content blocks
 * (text, thinking, tool_use), and bookkeeping entries (summary, system, attachment, snapshots) we skip.
 * A missing or unreadable transcript is no history, never an error.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Turn } from "../recall/types.ts";

export interface TailOptions {
  /** How many messages (user + assistant) to return at most, newest last. */
  messages: number;
  /** Stop reading after this many bytes from the end (default 1 MiB). */
  maxBytes?: number;
  /** Text transform applied to every message (e.g. stripping our own injected blocks). */
  clean?: (text: string) => string;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** Wrappers Claude Code puts in user content that the user did not type. */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const HARNESS_TEXT = /^\s*<(command-name|command-message|local-command-stdout|local-command-caveat)>/;

export function readTranscriptTail(file: string | undefined, opts: TailOptions): Turn[] {
  if (file === undefined || opts.messages <= 0) return [];
  let fd: number;
  try {
    fd = openSync(file, "r");
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

function readTail(fd: number, opts: TailOptions): Turn[] {
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const size = fstatSync(fd).size;
  const newestFirst: Turn[] = [];
  let pos = size;
  let carry: Buffer = Buffer.alloc(0);
  // One message more than asked for, so the oldest returned assistant message is complete after merging.
  while (pos > 0 && size - pos < maxBytes && newestFirst.length <= opts.messages) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    const chunk = Buffer.alloc(len);
    readSync(fd, chunk, 0, len, pos);
    const buf = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    // Until the start of the file the first line in the buffer may be cut: keep it for the next round.
    const cut = pos === 0 ? 0 : buf.indexOf(NEWLINE) + 1;
    if (cut === 0 && pos > 0) {
      carry = buf;
      continue;
    }
    carry = buf.subarray(0, cut);
    const lines = buf.subarray(cut).toString("utf8").split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const entry = parseLine(lines[i]!);
      if (entry === "boundary") return finish(newestFirst, opts.messages);
      if (entry !== null) push(newestFirst, entry, opts.clean);
    }
  }
  return finish(newestFirst, opts.messages);
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
    const typed = text.replace(REMINDER, "").trim();
    return typed === "" || HARNESS_TEXT.test(typed) ? null : { role: "user", text: typed };
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
