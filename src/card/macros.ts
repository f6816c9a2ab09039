/**
 * The card spec's macros (§10, "Curly Braced Syntax") in the text a card sends, evaluated in the order
 * of §11.2: decorators are gone already (an import moves them to `decorators:`), then the other macros
 * are evaluated, then `{{char}}` / `{{user}}` are filled in. Names are case-insensitive (§11.3).
 *
 *   {{random:a,b}}   one of the values (`::` writes a literal comma)
 *   {{pick:a,b}}     one of the values, the same for the same expression
 *   {{roll:N}}       a number from 1 to N (`{{roll:d6}}` too)
 *   {{reverse:A}}    A backwards
 *   {{// A}}         nothing (an author's note; it may span lines)
 *   {{comment: A}}   nothing in the prompt; the editor shows A (§10.3.3: never sent to the model)
 *   {{hidden_key:A}} nothing in the prompt; A is still scanned for other cards' names (reach)
 *   {{char}}, <char>, <bot>   the character's name; {{user}}, <user>   the user's name
 *
 * A macro whose name is not configured, and one this module does not know (`{{time}}`, `{{getvar::x}}`),
 * stays exactly as written (§11.4 leaves that to us), and `check` names it. Draws are not random: the
 * caller's `draw` turns what is drawn for into a number, and the surfaces seed it with the conversation
 * and the card's text, so a card sends the same bytes on every turn of a conversation (the gateway's
 * replay and the provider's cache depend on that) until the card is edited. Pure.
 */

export interface MacroNames {
  char?: string;
  user?: string;
}

export interface MacroOptions {
  names?: MacroNames;
  /** A number in [0, 1) for what is drawn (`random#2:a,b`, `pick:a,b`); the same input, the same number. */
  draw?: (what: string) => number;
}

/** What a text's macros hold besides the text they leave: for reach, `check` and the editor. */
export interface MacroReading {
  /** The text the model reads. */
  text: string;
  /** The `{{hidden_key:…}}` values: scanned for names, never sent. */
  hidden: string[];
  /** The `{{comment:…}}` values: shown to the person, never sent. */
  comments: string[];
  /** Macros left as written because this module does not know them, as written. */
  unknown: string[];
  /** `char` / `user` when the text uses that macro and no name is given for it. */
  unnamed: ("char" | "user")[];
}

const NAMES = /\{\{(char|user)\}\}|<(char|bot|user)>/gi;

/** Where the `{{` at `start` is closed (the index after its `}}`), counting nested pairs; -1 when never. */
function closing(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length - 1; i++) {
    if (text[i] === "{" && text[i + 1] === "{") {
      depth++;
      i++;
    } else if (text[i] === "}" && text[i + 1] === "}") {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** `a::b,c` → ["a,b", "c"] (§10.2.1). */
function choices(arg: string): string[] {
  return arg
    .split("::")
    .map((part) => part.split(","))
    .reduce((acc, parts) => {
      if (acc.length === 0) return parts;
      acc[acc.length - 1] += `,${parts[0]}`;
      return acc.concat(parts.slice(1));
    }, [] as string[]);
}

function chosen(values: readonly string[], r: number): string {
  return values[Math.min(values.length - 1, Math.floor(r * values.length))] ?? "";
}

/** The sides of `{{roll:N}}` / `{{roll:dN}}`, or null when the argument is no positive whole number. */
function sides(arg: string): number | null {
  const m = /^\s*[dD]?(\d{1,9})\s*$/.exec(arg);
  const n = m ? Number(m[1]) : 0;
  return n >= 1 ? n : null;
}

function rolled(n: number, r: number): string {
  return String(1 + Math.min(n - 1, Math.floor(r * n)));
}

/** Reads `text`'s macros: the text the model gets, and what they hold besides. */
export function readMacros(text: string, options: MacroOptions = {}): MacroReading {
  const reading: MacroReading = { text: "", hidden: [], comments: [], unknown: [], unnamed: [] };
  if (!text.includes("{{") && !text.includes("<")) return { ...reading, text };
  const draw = options.draw ?? (() => 0);
  let out = "";
  let at = 0;
  let randoms = 0;
  for (let open = text.indexOf("{{"); open !== -1; open = text.indexOf("{{", at)) {
    const end = closing(text, open);
    if (end === -1) break;
    out += text.slice(at, open);
    at = end;
    const whole = text.slice(open, end);
    const inner = whole.slice(2, -2);
    if (inner.startsWith("//")) continue;
    const colon = inner.indexOf(":");
    const name = (colon === -1 ? inner : inner.slice(0, colon)).toLowerCase();
    const arg = colon === -1 ? "" : inner.slice(colon + 1);
    if (colon !== -1 && name === "random") out += chosen(choices(arg), draw(`random#${randoms++}:${arg}`));
    else if (colon !== -1 && name === "pick") out += chosen(choices(arg), draw(`pick:${arg}`));
    else if (colon !== -1 && name === "roll" && sides(arg) !== null)
      out += rolled(sides(arg)!, draw(`roll#${randoms++}:${arg}`));
    else if (colon !== -1 && name === "reverse") out += [...arg].reverse().join("");
    else if (colon !== -1 && name === "comment") reading.comments.push(arg.trim());
    else if (colon !== -1 && name === "hidden_key") reading.hidden.push(arg);
    else {
      if (colon !== -1 || (name !== "char" && name !== "user")) reading.unknown.push(whole);
      out += whole;
    }
  }
  out += text.slice(at);
  const unnamed: ("char" | "user")[] = [];
  reading.text = fillNames(out, options.names ?? {}, unnamed);
  reading.unnamed = (["char", "user"] as const).filter((n) => unnamed.includes(n));
  return reading;
}

/** §11.2 step 3, in one pass: a name is inserted as it is, never read for macros again. */
function fillNames(text: string, names: MacroNames, unnamed: ("char" | "user")[]): string {
  return text.replace(NAMES, (whole, curly: string | undefined, angle: string | undefined) => {
    const which = (curly ?? angle)?.toLowerCase() === "user" ? "user" : "char";
    const name = names[which];
    if (name !== undefined && name !== "") return name;
    if (!unnamed.includes(which)) unnamed.push(which);
    return whole;
  });
}

/** The text the model reads for `text`; unchanged when it holds no macro. */
export function expandMacros(text: string, options: MacroOptions = {}): string {
  return readMacros(text, options).text;
}
