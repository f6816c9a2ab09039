/**
 * Every regular-expression key of a vault run over a message at once, at a cost that does not follow
 * the number of keys. Testing each pattern on each message costs about half a microsecond per pattern
 * and message (and compiling it, in a fresh process, a fraction of a millisecond), so a book with a
 * thousand regex keys would spend milliseconds per lookup. Two ways around it:
 *   - a pattern with required literals (literal.ts: `monday` and `deploy` in `monday\s+deploy`)
 *     waits behind one Aho–Corasick automaton of those literals: it is compiled and run only on a
 *     message that holds all of them;
 *   - the others run together in re2js's RE2Set, which reads a message once for many patterns and
 *     answers which matched, in sets of CHUNK: a set's automaton grows with its patterns, and a
 *     small set stays inside its memory cap (past it re2js falls back to a far slower simulation).
 * A pattern a set will not take is tested alone, or dropped when it does not compile (it never
 * matches).
 */
import type { RE2JS, RE2Set } from "re2js";
import { re2 } from "./_re2.ts";
import { Automaton } from "./automaton.ts";
import { requiredLiterals } from "./literal.ts";
import { compilePattern, type PatternSource } from "./pattern.ts";

/** One regex key: the card it belongs to, its position among the card's patterns, as written, its pattern. */
export interface RegexKey {
  card: number;
  key: number;
  written: string;
  pattern: PatternSource;
}

const CHUNK = 128;
/** Bytes of automaton cache per set (re2js's default is 8 MiB). */
const SET_MEMORY = 2 * 1024 * 1024;

interface Chunk {
  set?: RE2Set;
  /** Keys by their index in the set. */
  inSet: RegexKey[];
  /** Keys tested one by one, with their compiled pattern. */
  alone: { key: RegexKey; regex: RE2JS }[];
}

interface Gated {
  key: RegexKey;
  /** The required literals as written (for a case-sensitive pattern's exact check), longest first. */
  literals: string[];
  /** Their ids in the literal automaton (lower-cased). */
  ids: number[];
  /** The compiled pattern once a message got it this far; null when it does not compile. */
  regex?: RE2JS | null;
}

export class RegexScan {
  private readonly chunks: Chunk[] = [];
  /** Automaton of the lower-cased required literals; `gated[t]` are the keys whose longest is literal t. */
  private readonly literals?: Automaton;
  private readonly gated: Gated[][] = [];

  constructor(keys: readonly RegexKey[]) {
    const rest: RegexKey[] = [];
    const ids = new Map<string, number>();
    const idOf = (literal: string) => {
      const lower = literal.toLowerCase();
      let id = ids.get(lower);
      if (id === undefined) {
        id = ids.size;
        ids.set(lower, id);
        this.gated.push([]);
      }
      return id;
    };
    for (const key of keys) {
      const literals = requiredLiterals(key.pattern.source);
      if (literals.length === 0) rest.push(key);
      else {
        const gate: Gated = { key, literals, ids: literals.map(idOf) };
        this.gated[gate.ids[0]!]!.push(gate);
      }
    }
    if (ids.size > 0) this.literals = new Automaton([...ids.keys()]);
    for (let start = 0; start < rest.length; start += CHUNK) {
      this.chunks.push(chunk(rest.slice(start, start + CHUNK)));
    }
  }

  /** The keys whose pattern matches somewhere in `text`, by card and then key. */
  matching(text: string): RegexKey[] {
    const out: RegexKey[] = [];
    for (const { set, inSet, alone } of this.chunks) {
      if (set) for (const i of set.match(text)) out.push(inSet[i]!);
      for (const { key, regex } of alone) if (regex.test(text)) out.push(key);
    }
    if (this.literals) {
      const present = new Set<number>();
      // Lower case finds every ASCII literal a case-insensitive pattern can match: re2 also folds the
      // Kelvin sign into k (which lower-casing does too) and the long s into s (which it does not).
      this.literals.scan(text.toLowerCase().replaceAll("ſ", "s"), (hit) => present.add(hit.term));
      for (const id of present) {
        for (const gate of this.gated[id]!) {
          if (!gate.ids.every((other) => present.has(other))) continue;
          const caseless = (gate.key.pattern.flags & re2().RE2JS.CASE_INSENSITIVE) !== 0;
          if (!caseless && !gate.literals.every((literal) => text.includes(literal))) continue;
          if (gate.regex === undefined) {
            const compiled = compilePattern(gate.key.pattern);
            gate.regex = "regex" in compiled ? compiled.regex : null;
          }
          if (gate.regex?.test(text)) out.push(gate.key);
        }
      }
    }
    return out.sort((a, b) => a.card - b.card || a.key - b.key);
  }
}

function chunk(keys: RegexKey[]): Chunk {
  const out: Chunk = { inSet: [], alone: [] };
  const testAlone = (key: RegexKey) => {
    const compiled = compilePattern(key.pattern);
    if ("regex" in compiled) out.alone.push({ key, regex: compiled.regex });
  };
  const set = new (re2().RE2Set)(re2().RE2Set.UNANCHORED, 0, SET_MEMORY);
  for (const key of keys) {
    try {
      // A set has one flag setting for all; each pattern carries its own as an inline group.
      set.add(`(?${inlineFlags(key.pattern.flags)}:${key.pattern.source})`);
      out.inSet.push(key);
    } catch {
      testAlone(key);
    }
  }
  if (out.inSet.length === 0) return out;
  try {
    set.compile();
    out.set = set;
  } catch {
    // Over the set's size limit: its patterns are tested one by one.
    for (const key of out.inSet.splice(0)) testAlone(key);
  }
  return out;
}

function inlineFlags(flags: number): string {
  let out = "";
  if (flags & re2().RE2JS.CASE_INSENSITIVE) out += "i";
  if (flags & re2().RE2JS.MULTILINE) out += "m";
  if (flags & re2().RE2JS.DOTALL) out += "s";
  return out;
}
