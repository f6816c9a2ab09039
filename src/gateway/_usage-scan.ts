/**
 * Finding the `usage` objects in a response body as it streams past, in bounded memory: a JSON
 * lexer that keeps only the path of object keys it is in (keys cut to 64 characters, 64 levels) and
 * copies out just the values at the paths asked for (up to 64 KiB each), and, for an event stream
 * (WHATWG HTML "Server-sent events"), a line reader that hands the lexer each event's `data` lines as
 * one document. No text of the answer is kept: a chat reply of megabytes costs a few hundred bytes.
 * Anything that is not JSON (`[DONE]`, a half-sent body) just finds nothing.
 */

const MAX_KEY = 64;
const MAX_DEPTH = 64;
const MAX_VALUE = 64 * 1024;

/** What ends a run of plain string characters: the closing quote, or an escape. */
const STRING_STOP = /["\\]/g;

interface Frame {
  object: boolean;
  key: string | null;
}

/** One JSON document at a time; `reset()` starts the next. Found values go to `found`, parsed. */
export class JsonPathScanner {
  private stack: Frame[] = [];
  private inString = false;
  private escape = false;
  private key = "";
  private readingKey = false;
  private expectKey = false;
  private pendingKey: string | null = null;
  private capture: string | null = null;
  private captureDepth = 0;
  private lost = false;

  constructor(
    private readonly paths: ReadonlySet<string>,
    private readonly found: (value: unknown) => void,
  ) {}

  reset(): void {
    this.stack = [];
    this.inString = this.escape = this.readingKey = this.expectKey = this.lost = false;
    this.key = "";
    this.pendingKey = this.capture = null;
  }

  write(text: string): void {
    if (this.lost) return;
    for (let i = 0; i < text.length; i++) {
      if (this.inString && !this.escape && !this.readingKey && this.capture === null) {
        // Inside a string that is neither a key nor kept (most of an answer: its text), only the
        // string's end or an escape matters: jump to the next one.
        STRING_STOP.lastIndex = i;
        const stop = STRING_STOP.exec(text);
        if (stop === null) return;
        i = stop.index;
      }
      const ch = text[i]!;
      if (this.capture !== null) {
        this.capture += ch;
        if (this.capture.length > MAX_VALUE) this.capture = null;
      }
      if (this.inString) this.stringChar(ch);
      else this.structural(ch);
      if (this.lost) return;
    }
  }

  private stringChar(ch: string): void {
    if (this.escape) {
      this.escape = false;
      if (this.readingKey && this.key.length < MAX_KEY) this.key += ch;
    } else if (ch === "\\") this.escape = true;
    else if (ch === '"') {
      this.inString = false;
      if (this.readingKey) this.pendingKey = this.key;
    } else if (this.readingKey && this.key.length < MAX_KEY) this.key += ch;
  }

  private structural(ch: string): void {
    const top = this.stack[this.stack.length - 1];
    switch (ch) {
      case '"':
        this.inString = true;
        this.readingKey = top?.object === true && this.expectKey;
        this.key = "";
        return;
      case ":":
        if (top?.object) {
          top.key = this.pendingKey;
          this.expectKey = false;
        }
        return;
      case ",":
        if (top?.object) {
          top.key = null;
          this.expectKey = true;
        }
        return;
      case "{":
      case "[":
        this.open(ch === "{");
        return;
      case "}":
      case "]":
        this.close();
        return;
    }
  }

  private open(object: boolean): void {
    if (this.stack.length >= MAX_DEPTH) {
      this.lost = true;
      return;
    }
    // The document itself is kept only when asked for by the empty path (a protocol whose counts sit
    // at the top of each answer: Ollama's).
    if (object && this.capture === null && this.paths.has(this.path())) {
      this.capture = "{";
      this.captureDepth = this.stack.length;
    }
    this.stack.push({ object, key: null });
    this.expectKey = object;
  }

  private close(): void {
    this.stack.pop();
    this.expectKey = false;
    if (this.capture !== null && this.stack.length === this.captureDepth) {
      const text = this.capture;
      this.capture = null;
      try {
        this.found(JSON.parse(text));
      } catch {
        // A value cut short or malformed: nothing found.
      }
    }
  }

  /** The keys leading to the value about to start (`[]` for an array element). */
  private path(): string {
    return this.stack.map((f) => (f.object ? (f.key ?? "") : "[]")).join(".");
  }
}

/**
 * Event-stream framing over the scanner: each event's `data` lines are one document (joined with
 * "\n", as the spec joins them); other fields, comments and over-long field names are skipped.
 */
export class EventStreamScanner {
  private field = "";
  private mode: "field" | "data" | "skip" = "field";
  private lineEmpty = true;
  private afterColon = false;
  private sawCR = false;
  private dataLines = 0;

  constructor(private readonly json: JsonPathScanner) {}

  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === "\n" && this.sawCR) {
        this.sawCR = false;
        i++;
        continue;
      }
      this.sawCR = ch === "\r";
      if (ch === "\n" || ch === "\r") {
        this.endLine();
        i++;
      } else if (this.mode === "data" && !this.afterColon) {
        // The rest of a data line goes to the scanner in one piece.
        const end = lineEnd(text, i);
        this.lineEmpty = false;
        this.json.write(text.slice(i, end));
        i = end;
      } else {
        this.lineChar(ch);
        i++;
      }
    }
  }

  /** The stream ended: an event without its blank line still counts. */
  end(): void {
    this.endLine();
    this.endLine();
  }

  private lineChar(ch: string): void {
    this.lineEmpty = false;
    if (this.mode === "data") {
      if (this.afterColon) {
        this.afterColon = false;
        if (ch === " ") return;
      }
      this.json.write(ch);
    } else if (this.mode === "field") {
      if (ch !== ":") {
        this.field += ch;
        if (this.field.length > 16) this.mode = "skip";
      } else if (this.field === "data") {
        if (this.dataLines++ > 0) this.json.write("\n");
        this.mode = "data";
        this.afterColon = true;
      } else this.mode = "skip";
    }
  }

  private endLine(): void {
    if (this.lineEmpty) {
      if (this.dataLines > 0) this.json.reset();
      this.dataLines = 0;
    }
    this.field = "";
    this.mode = "field";
    this.lineEmpty = true;
    this.afterColon = false;
  }
}

/** Where the line that goes on at `from` ends in `text` (its CR or LF), or the text's end. */
function lineEnd(text: string, from: number): number {
  const lf = text.indexOf("\n", from);
  const cr = text.indexOf("\r", from);
  if (lf === -1) return cr === -1 ? text.length : cr;
  return cr === -1 ? lf : Math.min(lf, cr);
}
