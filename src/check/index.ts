/**
 * The health check behind `lorecards check` and `GET /api/checkup`: cards that cannot be parsed,
 * cards that can never fire, keywords so generic they fire on ordinary text, titles that do not
 * match the file name, refs to cards that do not exist or are disabled (vault/ `refTarget`, the rule
 * recall renders "see also" lines by), frontmatter values and decorators that fell back to defaults,
 * regular-expression keys that do not compile, `{{char}}` / `{{user}}` with no name configured and
 * macros the card spec does not define,
 * kinds.yaml settings that were ignored, and symbolic links in the vault (never followed, so what they
 * point to is not a card).
 * Pure: it reads the index entries it is given and reports; it never changes a card.
 */
import { formatCount, keyFromTitle, rulesOf } from "../card/index.ts";
import type { MacroNames as Names } from "../card/macros.ts";
import type { BrokenCard, CardMeta, KindsConfig } from "../card/types.ts";
import { cardTerms, fold } from "../match/index.ts";
import { type CardLookup, lookupIn, refTarget } from "../vault/index.ts";
import { firesOnWords, genericTerm, wordProblems } from "../vet/index.ts";
import { macroProblems, patternProblems } from "./_rules.ts";

export type Severity = "error" | "warning";

export interface Finding {
  severity: Severity;
  code:
    | "unparseable"
    | "never_fires"
    | "old_import"
    | "no_keywords"
    | "generic_keyword"
    | "title_mismatch"
    | "dangling_ref"
    | "disabled_ref"
    | "duplicate_name"
    | "bad_value"
    | "bad_pattern"
    | "unnamed_macro"
    | "unknown_macro"
    | "ignored_secondary"
    | "macro_in_key"
    | "large_declared"
    | "bad_setting"
    | "symlink";
  /** `kind/key` of the card, or its path when it could not be parsed. */
  card: string;
  path: string;
  detail: string;
}

export type CheckCard = CardMeta & { warnings?: string[] };

/** What the vault adds to its cards for a check: each is optional, and checked only when given. */
export interface CheckContext {
  /** The vault's kind table: the kinds.yaml settings it ignored are reported (KindsConfig.warnings). */
  kinds?: KindsConfig;
  /**
   * A card's injected (public) text, for the macro check; undefined when it cannot be read. Without
   * it, macros are not checked (reading every card is what makes that check cost).
   */
  text?: (card: CardMeta) => string | undefined;
  /** The names for {{char}} and {{user}} (settings.yaml, flags); a macro with no name is reported. */
  names?: Names;
}

/**
 * `warnings` lists, per card path, frontmatter values that fell back to their defaults; `links` the
 * symbolic links where cards live (vault `findLinks`).
 */
export function checkCards(
  cards: readonly CardMeta[],
  broken: readonly BrokenCard[],
  warnings: readonly { path: string; warnings: string[] }[] = [],
  links: readonly { path: string; target: string }[] = [],
  context: CheckContext = {},
): Finding[] {
  const byPath = new Map(warnings.map((w) => [w.path, w.warnings]));
  const out: Finding[] = broken.map((b) => ({
    severity: "error",
    code: "unparseable",
    card: `${b.kind}/${b.key}`,
    path: b.path,
    detail: b.error,
  }));
  for (const w of context.kinds?.warnings ?? []) {
    out.push({ severity: "warning", code: "bad_setting", card: "kinds.yaml", path: "kinds.yaml", detail: w });
  }
  const names = lookupIn(cards);
  for (const card of cards) {
    out.push(...checkCard({ ...card, warnings: byPath.get(card.path) }, names));
    out.push(...ruleFindings(card, context));
  }
  out.push(...duplicateNames(cards));
  for (const l of links) {
    const detail = `is a symbolic link to ${l.target}; lorecards never follows links inside the vault`;
    out.push({ severity: "error", code: "symlink", card: l.path, path: l.path, detail });
  }
  return out;
}

function ruleFindings(card: CardMeta, context: CheckContext): Finding[] {
  const problems = patternProblems(card);
  const text = context.text?.(card);
  if (text !== undefined) problems.push(...macroProblems(card, text, context.names));
  return problems.map((p) => ({ ...p, card: `${card.kind}/${card.key}`, path: card.path }));
}

/**
 * Two cards with the same title (in different kinds: a kind cannot hold two files of one name) both
 * fire on that title, compete for the budget, and make `read NAME` and refs ambiguous.
 */
function duplicateNames(cards: readonly CardMeta[]): Finding[] {
  const byTitle = new Map<string, CardMeta[]>();
  for (const c of cards) {
    const t = fold(c.title);
    const same = byTitle.get(t);
    if (same) same.push(c);
    else byTitle.set(t, [c]);
  }
  const out: Finding[] = [];
  for (const same of byTitle.values()) {
    if (same.length < 2) continue;
    const ids = same.map((c) => `${c.kind}/${c.key}`);
    for (const [i, c] of same.entries()) {
      const others = namedOthers(ids, i);
      out.push({
        severity: "warning",
        code: "duplicate_name",
        card: `${c.kind}/${c.key}`,
        path: c.path,
        detail: `another card has the title "${c.title}" (${others}): both fire on it and compete for the budget`,
      });
    }
  }
  return out;
}

/**
 * The other ids than `ids[self]`, at most SHOWN of them and a count of the rest: one finding per card
 * naming every other card would make n cards sharing a title an n² report.
 */
function namedOthers(ids: readonly string[], self: number): string {
  const SHOWN = 3;
  const named: string[] = [];
  for (let i = 0; i < ids.length && named.length < SHOWN; i++) if (i !== self) named.push(ids[i]!);
  const rest = ids.length - 1 - named.length;
  return rest > 0 ? `${named.join(", ")} and ${formatCount(rest)} more` : named.join(", ");
}

function checkCard(card: CheckCard, names: CardLookup): Finding[] {
  const found: Finding[] = [];
  const add = (severity: Severity, code: Finding["code"], detail: string) =>
    found.push({ severity, code, card: `${card.kind}/${card.key}`, path: card.path, detail });
  const terms = cardTerms(card);
  // Only a card that waits for its words can be kept silent by them; `always` needs none at all.
  if (firesOnWords(card)) for (const p of wordProblems(card, terms)) add(p.severity, p.code, p.detail);
  for (const term of terms) {
    const generic = genericTerm(term, rulesOf(card));
    if (generic !== null) add("warning", "generic_keyword", generic);
  }
  // A title that is no legal file name (`aux.txt`, over 200 bytes) gets the name made from it: no mismatch.
  // A card in a sub-folder (key `family/Rin`) is named by its file name.
  const file = card.key.slice(card.key.lastIndexOf("/") + 1);
  if (fold(card.title) !== fold(file) && fold(keyFromTitle(card.title)) !== fold(file)) {
    add("warning", "title_mismatch", `title "${card.title}" does not match the file name "${file}.md"`);
  }
  // The same rule recall uses for "see also" lines (vault refTarget): what it would not show is reported.
  for (const ref of card.refs) {
    const target = refTarget(names, ref);
    if (target.status === "missing")
      add("warning", "dangling_ref", `refs names "${ref}", but no such card exists`);
    else if (target.status === "disabled") {
      const id = `${target.card.kind}/${target.card.key}`;
      add(
        "warning",
        "disabled_ref",
        `refs names "${ref}", but ${id} is disabled, so no "see also" line shows it`,
      );
    }
  }
  for (const w of card.warnings ?? []) add("warning", "bad_value", w);
  return found;
}
