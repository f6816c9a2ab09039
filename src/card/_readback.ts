/**
 * The last check before any card text leaves card/: read it back the way parseCard will and compare
 * with what the writer meant. A writer bug (or a `yaml` round-trip we did not foresee) then becomes a
 * coded refusal before anything reaches the disk, never an unreadable or silently changed card.
 */
import { describeError, LoreError } from "../errors.ts";
import { type FrontmatterRead, readFrontmatter, readPlainFrontmatter } from "./_frontmatter.ts";

export interface MeantCard {
  data: Record<string, unknown>;
  /** The body as parseCard should give it (LF line endings); unchecked when undefined. */
  body?: string;
}

/**
 * node:util's `isDeepStrictEqual`, loaded on first use: loading node:util costs about a millisecond,
 * and a hook, which writes no card, would pay it on every prompt.
 */
function deepStrictEqual(a: unknown, b: unknown): boolean {
  return (require("node:util") as typeof import("node:util")).isDeepStrictEqual(a, b);
}

/**
 * `isDeepStrictEqual` for what frontmatter reads as (strings, numbers, booleans, null, arrays and plain
 * objects), several times sooner: an import runs it once a card. Any other object is left to it.
 */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const proto = Object.getPrototypeOf(a);
  if (proto !== Object.getPrototypeOf(b)) return false;
  if (proto === Object.prototype) {
    return differingKey(a as Record<string, unknown>, b as Record<string, unknown>) === undefined;
  }
  if (proto !== Array.prototype) return deepStrictEqual(a, b);
  const x = a as unknown[];
  const y = b as unknown[];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (Object.hasOwn(x, i) !== Object.hasOwn(y, i) || !same(x[i], y[i])) return false;
  }
  return true;
}

/** The first key (the read data's order, then the meant data's) whose value differs or that only one has. */
function differingKey(got: Record<string, unknown>, want: Record<string, unknown>): string | undefined {
  for (const k of Object.keys(got)) if (!Object.hasOwn(want, k) || !same(got[k], want[k])) return k;
  for (const k of Object.keys(want)) if (!Object.hasOwn(got, k)) return k;
  return undefined;
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/**
 * Read `text` back; throw LoreError invalid_input naming what would not read back as meant. Gives the
 * read (and whether the fast path took it), so a writer that also wants the card need not read it twice.
 */
export function assertReadsBack(
  text: string,
  meant: MeantCard,
): { body: string; read: FrontmatterRead; plain: boolean } {
  let read: FrontmatterRead;
  let plain = false;
  try {
    // As parseCard reads it: the fast path when it accepts the text (the same data), else the full one.
    const fast = readPlainFrontmatter(text);
    plain = fast !== null;
    read = fast ?? readFrontmatter(text);
  } catch (err) {
    throw new LoreError("invalid_input", `the card would be written unreadable: ${describeError(err)}`, {
      cause: err,
    });
  }
  const key = differingKey(read.data, meant.data);
  if (key !== undefined) {
    const got = Object.hasOwn(read.data, key) ? show(read.data[key]) : "nothing";
    const want = Object.hasOwn(meant.data, key) ? show(meant.data[key]) : "nothing";
    throw new LoreError(
      "invalid_input",
      `frontmatter key ${show(key)} cannot be written: it would read back as ${got} instead of ${want}`,
      { data: { key } },
    );
  }
  if (meant.body !== undefined && read.body !== meant.body) {
    throw new LoreError("invalid_input", "the card's body would not read back as written");
  }
  return { body: read.body, read, plain };
}
