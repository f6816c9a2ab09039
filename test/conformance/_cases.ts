/**
 * The shape of a conformance file (test/fixtures/conformance/*.json) and how a case's expectation is
 * checked. A file holds one book — written inline, or named from ../shared/fixtures/real/ — and cases:
 * a conversation (oldest first, the last message is the current one) and the entries that the judge
 * (SillyTavern's World Info code, or the card spec for V3 decorators) activates for it. When lorecards
 * deliberately answers otherwise, `differs` holds our answer and why; the engine is held to that.
 */

export type Judge = "sillytavern" | "spec";

export interface Message {
  role: "user" | "assistant";
  text: string;
}

/** Which entry titles are chosen. `fires` alone = exactly these; with `oneOf`, each list adds exactly one. */
export interface Expectation {
  fires?: string[];
  /** Exactly one title of each list is chosen as well (an inclusion group's random winner). */
  oneOf?: string[][];
  /** At least these (real books whose exact answer in SillyTavern depends on context size and tokenizer). */
  includes?: string[];
  /** None of these. */
  excludes?: string[];
}

/**
 * Our answer where it deliberately differs from the judge's: `difference` names the row of the table
 * of deliberate differences in docs/INTEROP.md that it shows (test/docs/differences.test.ts holds the
 * table and the cases to each other).
 */
export type Difference = Expectation & { difference: string; why: string };

/** The fields of a placement a case checks (the others are not looked at). */
export interface Placement {
  position?: string | null;
  depth?: number | null;
  role?: string | null;
}

export interface Case extends Expectation {
  /** The test's name: a sentence. */
  name: string;
  messages: Message[];
  /** The rule of the judge that gives this answer (function names for SillyTavern, section for the spec). */
  why: string;
  judge?: Judge;
  /** Where lorecards deliberately answers otherwise: our answer, and why (the README says more). */
  differs?: Difference;
  /** `try` flags; `budget` defaults to a generous one so budgets never interfere unless the case is about them. */
  options?: { seed?: string; budget?: number; budgetTokens?: number; reach?: "named" | "one-hop" };
  /** The placement `try --json` must report for these chosen titles. */
  placement?: Record<string, Placement>;
  /** How SillyTavern is asked (over the file's): its scan depth in messages and World Info settings. */
  sillytavern?: StSettings;
}

/**
 * SillyTavern's side of a case: `depth` is `world_info_depth` (default 2, as a new installation ships),
 * `settings` any of its World Info settings (default: recursion on, as shipped; no budget).
 */
export interface StSettings {
  depth?: number;
  settings?: Record<string, unknown>;
  /** `estimate`: count tokens with SillyTavern's "None" tokenizer (the judge has no tokenizer models). */
  tokenizer?: "estimate";
}

export interface ConformanceFile {
  /** What the file covers. */
  about: string;
  judge?: Judge;
  /** The book or card, as its author's tool writes it. */
  book?: unknown;
  /** Or a file in ../shared/fixtures/real/. */
  real?: string;
  /** The file name the book is imported under (its extension matters to some importers). */
  file?: string;
  /**
   * A book written to show deliberate differences: its entries are made to disagree with SillyTavern,
   * so the sweep (sweep.test.ts), which asks every entry of a book by its first key, leaves it out.
   */
  differences?: boolean;
  /** How SillyTavern is asked for every case of the file (a case's own block wins). */
  sillytavern?: StSettings;
  cases: Case[];
}

/** What a case expects of lorecards: its own answer when it deliberately differs, else the judge's. */
export function expected(c: Case): Expectation {
  return c.differs ?? c;
}

/** Every way the chosen titles break the expectation; empty when they meet it. */
export function mismatches(chosen: readonly string[], want: Expectation): string[] {
  const got = new Set(chosen);
  const out: string[] = [];
  for (const t of want.includes ?? []) if (!got.has(t)) out.push(`missing ${JSON.stringify(t)}`);
  for (const t of want.excludes ?? []) if (got.has(t)) out.push(`unexpected ${JSON.stringify(t)}`);
  if (want.fires === undefined && want.oneOf === undefined) return out;
  const fixed = new Set(want.fires ?? []);
  for (const t of fixed) if (!got.has(t)) out.push(`missing ${JSON.stringify(t)}`);
  const rest = [...got].filter((t) => !fixed.has(t));
  for (const group of want.oneOf ?? []) {
    const winners = rest.filter((t) => group.includes(t));
    if (winners.length !== 1)
      out.push(`expected exactly one of ${JSON.stringify(group)}, got ${JSON.stringify(winners)}`);
  }
  const allowed = new Set((want.oneOf ?? []).flat());
  for (const t of rest) if (!allowed.has(t)) out.push(`unexpected ${JSON.stringify(t)}`);
  return out;
}
