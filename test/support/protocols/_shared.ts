/**
 * What the protocol descriptors share: the neutral conversation they build bodies from, reading text
 * out of content that is a string or a list of parts, and the pieces of a fake upstream's answer.
 */
export type Obj = Record<string, unknown>;
export type Body = Obj & { messages: Obj[] };

export interface Msg {
  role: "user" | "assistant";
  /** Plain text, or parts (text and an image that must come through untouched). */
  content: string | Part[];
}

export type Part = { type: "text"; text: string } | { type: "image"; data: string };

export interface Conversation {
  system?: string;
  messages: Msg[];
  stream?: boolean;
}

/** A 1×1 PNG, as base64. */
export const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const parse = (raw: string) => JSON.parse(raw) as Body;

/** The text of content: a string, or the text of its parts joined by a line break. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("\n");
}

/** Content as a list of parts: strings become one text part, text-like parts become `text`. */
export function canonicalContent(content: unknown): unknown {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return content ?? null;
  return content.map((part) => {
    if (!isObj(part)) return part;
    const { cache_control: _, ...rest } = part;
    if (rest.type === "input_text" || rest.type === "output_text") return { ...rest, type: "text" };
    return rest;
  });
}

/** One message or input item in canonical form. */
export function canonicalItem(item: unknown): Obj {
  if (!isObj(item)) return { value: item };
  const out: Obj = { ...item };
  if ("content" in out) out.content = canonicalContent(out.content);
  // `{role, content}` and `{type: "message", role, content}` are the same Responses input item.
  if (out.type === "message") delete out.type;
  return out;
}

export function wantsStream(body: string): boolean {
  try {
    return (JSON.parse(body) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

/** A reply's text cut into the pieces a stream sends. */
export function pieces(text: string): string[] {
  const words = text.split(/(?<= )/);
  return words.length > 0 ? words : [text];
}

const encoder = new TextEncoder();

/** An event stream of `data` lines, each with its `event:` name when given. */
export function eventStream(
  events: [string | null, unknown][],
  headers: Record<string, string> = { "content-type": "text/event-stream" },
): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const [name, data] of events) {
        const payload = typeof data === "string" ? data : JSON.stringify(data);
        c.enqueue(encoder.encode(`${name ? `event: ${name}\n` : ""}data: ${payload}\n\n`));
      }
      c.close();
    },
  });
  return new Response(stream, { headers });
}

/**
 * The body up to the end of its list under `key` (`messages`, `input`, `contents`), before the list's
 * closing `]`, for a body serialised without whitespace.
 */
export function listPrefix(raw: string, key: string): string {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const name = `"${key}":`;
  const at = raw.indexOf(name);
  const list = JSON.stringify(body[key]);
  const end = at + name.length + list.length - 1;
  if (at === -1 || raw.slice(at + name.length, end + 1) !== list) {
    throw new Error("body is not in compact JSON form");
  }
  return raw.slice(0, end);
}

/** The list under `key` of a body. */
export const listOf = (raw: string, key: string): Obj[] => {
  const list = (JSON.parse(raw) as Obj)[key];
  return Array.isArray(list) ? (list as Obj[]) : [];
};

/**
 * The text a client reads out of a streamed answer, roughly: every string under a `text`, `content` or
 * `delta` key, in order, of each event (`data:` lines) or line of newline-delimited JSON.
 */
export function streamedText(answer: string): string {
  const out: string[] = [];
  const walk = (v: unknown, key?: string): void => {
    if (typeof v === "string") {
      if (key === "text" || key === "content" || key === "delta") out.push(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const line of answer.split(/\r?\n/)) {
    const json = line.startsWith("data:") ? line.slice(5).trim() : line.trim();
    if (!json.startsWith("{")) continue;
    try {
      walk(JSON.parse(json));
    } catch {
      // a line that is not JSON carries no text
    }
  }
  return out.join("");
}
