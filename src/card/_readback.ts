/**
 * The last check before any card text leaves card/: read it back the way parseCard will and compare
 * with what the writer meant. A writer bug (or a `yaml` round-trip we did not foresee) then becomes a
 * coded refusal before anything reaches the disk, never an unreadable or silently changed card.
 */
import { isDeepStrictEqual } from "node:util";
import { LoreError } from "../errors.ts";
import { readFrontmatter, readPlainFrontmatter } from "./_frontmatter.ts";

export interface MeantCard {
  data: Record<string, unknown>;
  /** The body as parseCard should give it (LF line endings); unchecked when undefined. */
  body?: string;
}

function differingKey(got: Record<string, unknown>, want: Record<string, unknown>): string | undefined {
  const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
  for (const k of keys) {
    if (Object.hasOwn(got, k) !== Object.hasOwn(want, k) || !isDeepStrictEqual(got[k], want[k])) return k;
  }
  return undefined;
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** Read `text` back; throw LoreError invalid_input naming what would not read back as meant. */
export function assertReadsBack(text: string, meant: MeantCard): { body: string } {
  let read: ReturnType<typeof readFrontmatter>;
  try {
    // As parseCard reads it: the fast path when it accepts the text (the same data), else the full one.
    read = readPlainFrontmatter(text) ?? readFrontmatter(text);
  } catch (err) {
    throw new LoreError("invalid_input", `the card would be written unreadable: ${(err as Error).message}`, {
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
  return { body: read.body };
}
