/**
 * Cards imported before issue 11 (README "Import and export"): the old mapping read SillyTavern's
 * selectiveLogic 1 (NOT ALL) as `secondary.all` and 3 (AND ALL) as `secondary.not`, and kept constant,
 * position, probability and every other setting under `st:` / `card:` where nothing acted on them (an
 * export now writes what the card says, so they would be lost). Such a card is known by its `priority`
 * without an `order` or any lorebook field (an import since writes `order`, never `priority` for World
 * Info). The repair joins the card with the old tables (_legacy.ts), which gives back the entry it came
 * from with any edits made since, and maps that entry as an import today would. `check` reports what
 * `staleImport` finds; `repairImports` fixes every such card in one all-or-nothing step.
 */

import { splitDecorators } from "../card/decorators.ts";
import { type CardEdit, KNOWN_FIELDS, updateCardText } from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { type Placement, placeAll, type Vault, withSettledLock } from "../vault/index.ts";
import { splitBookEntry } from "./_charbook.ts";
import { readVaultCards } from "./_disk.ts";
import { entryToDraft } from "./_draft.ts";
import { LEGACY_BOOK_RULES, LEGACY_ST_RULES, legacyBookFinish } from "./_legacy.ts";
import {
  type BookEntry,
  isRecord,
  joinEntry,
  plainMapped,
  type Raw,
  RULE_FIELDS,
  sameValue,
  splitEntry,
} from "./_model.ts";
import type { SkippedEntry } from "./_st.ts";
import { ST_RULES } from "./_st-rules.ts";

/** A card the old mapping imported, and what the repair changes on it. */
export interface StaleImport {
  /** The card's path relative to the vault. */
  path: string;
  kind: string;
  key: string;
  /** One short line per change, e.g. "secondary.all → secondary.not_all (SillyTavern 1 = NOT ALL)". */
  changes: string[];
  /** The frontmatter (and, for decorators that opened the body, body) edit that repairs it. */
  edit: CardEdit;
}

const TOUCHED = [
  "title",
  "keywords",
  "secondary",
  "scan_depth",
  "priority",
  "enabled",
  ...RULE_FIELDS,
  "decorators",
];

function isOldImport(fm: Raw): "st" | "card" | null {
  const ns = isRecord(fm.st) ? "st" : isRecord(fm.card) ? "card" : null;
  if (ns === null || !("priority" in fm) || "order" in fm || "decorators" in fm) return null;
  return RULE_FIELDS.some((f) => f in fm) ? null : ns;
}

/** The entry the card came from (old tables), mapped again with today's. */
function remapped(card: Card, ns: "st" | "card", foreign: Raw): BookEntry {
  const mapped = plainMapped({
    title: card.title,
    keywords: [...card.keywords],
    secondary: card.secondary,
    scanDepth: card.scanDepth,
    priority: card.priority,
    enabled: card.enabled,
    body: card.body.endsWith("\n") ? card.body.slice(0, -1) : card.body,
  });
  if (ns === "st") return splitEntry(ST_RULES, joinEntry(LEGACY_ST_RULES, mapped, foreign));
  const entry = legacyBookFinish(joinEntry(LEGACY_BOOK_RULES, mapped, foreign), mapped);
  return splitBookEntry(entry);
}

function describe(field: string, before: unknown, after: unknown): string {
  if (field === "secondary" && isRecord(before) && isRecord(after)) {
    const lines: string[] = [];
    for (const [from, to, logic] of [
      ["all", "not_all", "1 = NOT ALL"],
      ["not", "all", "3 = AND ALL"],
    ] as const) {
      if (before[from] !== undefined && sameValue(before[from], after[to])) {
        lines.push(`secondary.${from} → secondary.${to} (SillyTavern ${logic})`);
      }
    }
    if (lines.length > 0) return lines.join("; ");
  }
  if (after === undefined) return `${field} removed`;
  if (field === "st" || field === "card") return `${field}: settings moved onto the card`;
  return `${field}: ${JSON.stringify(after)}`;
}

/** What repairing one card changes; null when it was not imported with the old mapping or needs nothing. */
export function staleImport(card: Card): StaleImport | null {
  const fm = card.frontmatter;
  const ns = isOldImport(fm);
  if (ns === null) return null;
  const entry = remapped(card, ns, fm[ns] as Raw);
  const fresh = entryToDraft(entry, card.key, { kind: card.kind, namespace: ns }).frontmatter;
  // An edit resets every card field it leaves out (the editor's form holds them all), so the fields
  // the repair keeps are passed along as they are.
  const frontmatter: Raw = {};
  for (const field of KNOWN_FIELDS) if (field in fm) frontmatter[field] = fm[field];
  const changes: string[] = [];
  for (const field of [...TOUCHED, ns]) {
    if (sameValue(fresh[field], fm[field])) continue;
    frontmatter[field] = fresh[field];
    changes.push(describe(field, fm[field], fresh[field]));
  }
  if (changes.length === 0) return null;
  const edit: CardEdit = { frontmatter };
  if (entry.decorators.length > 0) {
    const { decorators, rest } = splitDecorators(card.body);
    if (decorators.length > 0) {
      edit.body = rest;
      changes.push("body: leading @@ lines moved to decorators");
    }
  }
  return { path: card.path, kind: card.kind, key: card.key, changes, edit };
}

/** For `check`: every card of `cards` the old mapping imported, with what a repair would change. */
export function staleImports(cards: readonly Card[]): StaleImport[] {
  return cards.map(staleImport).filter((s): s is StaleImport => s !== null);
}

export interface RepairResult {
  /** The cards found (and, unless dry run, fixed). */
  cards: { path: string; changes: string[] }[];
  dryRun: boolean;
  /** Card files that could not be read. */
  skipped: SkippedEntry[];
}

/**
 * Finds every card the old mapping imported and, unless `dryRun`, rewrites them all as one step that a
 * crash cannot leave half done (the import's staged placement), under the vault lock. Each file keeps
 * everything the repair does not touch (comments, other keys, sections) byte for byte.
 */
export function repairImports(vault: Vault, opts: { dryRun?: boolean } = {}): Promise<RepairResult> {
  const dryRun = opts.dryRun === true;
  return withSettledLock(vault, async () => {
    const { files, skipped } = readVaultCards(vault);
    const cards: RepairResult["cards"] = [];
    const plan: Placement[] = [];
    for (const { card, text, file } of files) {
      const stale = staleImport(card);
      if (stale === null) continue;
      cards.push({ path: stale.path, changes: stale.changes });
      if (!dryRun) plan.push({ text: updateCardText(text, stale.edit), target: file, replaces: true });
    }
    // A repair is the CLI's rewrite of cards already there: an update in their history, not an import.
    if (plan.length > 0) await placeAll(vault, plan, undefined, { writer: "cli", action: "update" });
    return { cards, dryRun, skipped };
  });
}
