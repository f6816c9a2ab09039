/**
 * Many terms found in one pass: one Aho–Corasick automaton (match/automaton.ts) over every folded
 * term, never a regular expression per term. What the automaton cannot know is checked at each hit's
 * two edges:
 *
 * - a term that begins or ends with a Latin letter or digit needs a word edge there, so "lol" is not
 *   found in "lollipop"; Han and kana on the other side count as an edge ("好的lol");
 * - an emoticon made of ASCII symbols needs space, text's edge or non-ASCII text around it, so ":/"
 *   is not found in "http://", and may be followed by sentence punctuation (":).");
 * - trailing punctuation ("...", "~") may not run into a word or a path ("...args", "~/bin").
 *
 * A term may run on with the characters of its `more` ("haha" in "hahahaha"). Overlapping hits are
 * settled leftmost, then longest: "no cap" wins over "cap", and a blocker (a longer spelling that is
 * something else, 阿拉伯 for 阿拉) wins and then counts for nothing.
 */
import { Automaton, type AutomatonParts } from "../match/automaton.ts";
import { isWordCharAt, UNSPACED } from "../match/fold.ts";
import { styleFold } from "./fold.ts";

/** What an edge of a term asks of the character beside it. */
export type Edge = "none" | "word" | "emoticon" | "trailing";

export interface ScanTerm<T> {
  term: string;
  /** null for a blocker: it wins its overlaps and is then dropped. */
  value: T | null;
  /** Emoticons and trailing punctuation have their own edges. */
  shape?: "emoticon" | "punctuation";
  more?: string;
}

export interface ScanHit<T> {
  value: T;
  /** In UTF-16 units of the folded text; `end` includes any run-on (`more`). */
  start: number;
  end: number;
}

const ASCII_GRAPHIC = /[!-~]/;
const AFTER_EMOTICON = new Set([".", ",", "!", "?"]);
const AFTER_TRAILING = new Set([".", ",", "!", "?", "~", ")", "]", "}", '"', "'"]);

/** A letter, digit or underscore of a spaced script: what makes "lollipop" one word. */
function spacedWordAt(text: string, index: number): boolean {
  if (!isWordCharAt(text, index)) return false;
  return !UNSPACED.test(text[index]!);
}

function edgeOf(
  term: string,
  index: number,
  shape: ScanTerm<unknown>["shape"],
  side: "left" | "right",
): Edge {
  if (spacedWordAt(term, index)) return "word";
  const ch = term[index]!;
  if (!ASCII_GRAPHIC.test(ch)) return "none";
  if (shape === "emoticon") return "emoticon";
  if (shape === "punctuation" && side === "right") return "trailing";
  return "none";
}

/** True when the character at `index` (outside the hit) lets the hit's edge stand there. */
function edgeHolds(text: string, index: number, edge: Edge, side: "left" | "right"): boolean {
  if (edge === "none" || index < 0 || index >= text.length) return true;
  if (edge === "word") return !spacedWordAt(text, index);
  const ch = text[index]!;
  if (/\s/.test(ch) || ch.charCodeAt(0) > 0x7e) return true;
  if (edge === "emoticon") return side === "right" && AFTER_EMOTICON.has(ch);
  return AFTER_TRAILING.has(ch);
}

/** What a term's edges ask, and the characters it may run on with (folded), as plain data. */
export interface TermSpec {
  left: Edge;
  right: Edge;
  more?: string;
}

/**
 * A built scanner as plain data, to be saved where only JSON goes (a Bun macro's result): the
 * automaton's arrays in base64, each term's spec, and each term's value as an index into a list the
 * loader passes back (-1 for a blocker).
 */
export interface ScannerTables {
  parts: Record<string, string | number>;
  specs: TermSpec[];
  values: number[];
}

const ARRAYS = ["root", "firstChild", "nextSibling", "fail", "output", "dictLink", "depth"] as const;

export class TermScanner<T> {
  private readonly automaton: Automaton;
  private readonly specs: readonly TermSpec[];
  /** Each term's value as an index into `values`; -1 for a blocker. */
  private readonly valueAt: readonly number[];
  private readonly values: readonly T[];
  /** `more` as code points, made on a term's first hit (loading a saved scanner makes nothing per term). */
  private readonly moreSets = new Map<number, Set<number>>();
  readonly size: number;

  constructor(terms: readonly ScanTerm<T>[] | { tables: ScannerTables; values: readonly T[] }) {
    if (!Array.isArray(terms)) {
      const { tables, values } = terms as { tables: ScannerTables; values: readonly T[] };
      this.automaton = new Automaton(decodeParts(tables.parts));
      this.specs = tables.specs;
      this.valueAt = tables.values;
      this.values = values;
      this.size = this.specs.length;
      return;
    }
    const folded: string[] = [];
    const seen = new Set<string>();
    const specs: TermSpec[] = [];
    const valueAt: number[] = [];
    const values: T[] = [];
    for (const t of terms as readonly ScanTerm<T>[]) {
      const f = styleFold(t.term);
      if (f.length === 0 || seen.has(f)) continue; // the first term of a folded spelling wins
      seen.add(f);
      folded.push(f);
      const spec: TermSpec = {
        left: edgeOf(f, 0, t.shape, "left"),
        right: edgeOf(f, f.length - 1, t.shape, "right"),
      };
      if (t.more !== undefined) spec.more = styleFold(t.more);
      specs.push(spec);
      if (t.value === null) valueAt.push(-1);
      else valueAt.push(values.push(t.value) - 1);
    }
    this.automaton = new Automaton(folded);
    this.specs = specs;
    this.valueAt = valueAt;
    this.values = values;
    this.size = folded.length;
  }

  /** The scanner as data; `indexOf` names each value by its place in the list a loader will pass. */
  save(indexOf: (value: T) => number): ScannerTables {
    return {
      parts: encodeParts(this.automaton.toParts()),
      specs: [...this.specs],
      values: this.valueAt.map((v) => (v === -1 ? -1 : indexOf(this.values[v]!))),
    };
  }

  private moreOf(term: number): Set<number> | undefined {
    const more = this.specs[term]!.more;
    if (more === undefined) return undefined;
    let set = this.moreSets.get(term);
    if (set === undefined) {
      set = new Set([...more].map((c) => c.charCodeAt(0)));
      this.moreSets.set(term, set);
    }
    return set;
  }

  /** The hits in `folded` (already styleFold-ed), leftmost-longest, without overlaps or blockers. */
  scan(folded: string): ScanHit<T>[] {
    const found: { term: number; start: number; end: number }[] = [];
    // Where each term's last run-on stopped: hits come in order of their end, so a later hit of the
    // term that ends inside that run runs on to the same place. Walking it again from every hit
    // would be quadratic in a long run ("……" for "...", "hahaha…" for "haha").
    const ranTo = new Map<number, number>();
    this.automaton.scan(folded, (hit) => {
      const spec = this.specs[hit.term]!;
      const more = this.moreOf(hit.term);
      let end = hit.end;
      if (more) {
        const known = ranTo.get(hit.term);
        if (known !== undefined && known >= end) end = known;
        else {
          while (end < folded.length && more.has(folded.charCodeAt(end))) end++;
          ranTo.set(hit.term, end);
        }
      }
      if (!edgeHolds(folded, hit.start - 1, spec.left, "left")) return;
      if (!edgeHolds(folded, end, spec.right, "right")) return;
      found.push({ term: hit.term, start: hit.start, end });
    });
    if (found.length === 0) return [];
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const out: ScanHit<T>[] = [];
    let reached = 0;
    for (const f of found) {
      if (f.start < reached) continue;
      reached = f.end;
      const v = this.valueAt[f.term]!;
      if (v !== -1) out.push({ value: this.values[v]!, start: f.start, end: f.end });
    }
    return out;
  }
}

/** The automaton's arrays in one base64 string: the Int32 arrays in ARRAYS order, then edgeChar. */
function encodeParts(parts: AutomatonParts): Record<string, string | number> {
  const chunks = [...ARRAYS.map((name) => parts[name]), parts.edgeChar];
  const lengths = chunks.map((c) => c.length);
  const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
  return {
    size: parts.size,
    termCount: parts.termCount,
    lengths: lengths.join(","),
    data: bytes.toString("base64"),
  };
}

/** One decode, copied once into a buffer of its own (a Buffer's offset in its pool need not suit Int32). */
function decodeParts(data: Record<string, string | number>): AutomatonParts {
  const buffer = new Uint8Array(Buffer.from(String(data.data), "base64")).buffer;
  const lengths = String(data.lengths).split(",").map(Number);
  const ints: Partial<Record<(typeof ARRAYS)[number], Int32Array>> = {};
  let offset = 0;
  ARRAYS.forEach((name, i) => {
    ints[name] = new Int32Array(buffer, offset, lengths[i]);
    offset += lengths[i]! * 4;
  });
  return {
    size: Number(data.size),
    termCount: Number(data.termCount),
    ...(ints as Record<(typeof ARRAYS)[number], Int32Array>),
    edgeChar: new Uint16Array(buffer, offset, lengths[ARRAYS.length]),
  };
}
