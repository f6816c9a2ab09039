/**
 * Cards as JSON, for every surface that prints or serves them: a list entry (`list --json`, MCP
 * list_cards, `GET /api/cards`), a whole card as written (`read --json`, MCP read_card) and a card as
 * the editor's form (the HTTP API, docs/HTTP-API.md). One module, so a field added or renamed reaches
 * every surface at once; what differs between surfaces is an option named for why it differs. Pure:
 * cards in, plain objects out.
 */

import { isoFromNs } from "../wire.ts";
import { KNOWN_FIELDS } from "./_fields.ts";
import { RULE_FIELDS } from "./_rule-fields.ts";
import { readMacros } from "./macros.ts";
import { publicText } from "./parse.ts";
import { rulesChanges } from "./rules.ts";
import type { BrokenCard, Card, CardMeta, CardPlacement, CardRules, KindDef, Secondary } from "./types.ts";

export interface SummaryOptions {
  /** The card's path (default true); MCP names cards by kind and key only. */
  path?: boolean;
  /**
   * Aliases only when there are some, `enabled` and `inject` only when switched off: a page of a large
   * vault stays small for a model to read (MCP).
   */
  compact?: boolean;
  /** The first line of the public text and the mtime, for the editor's list (API). */
  preview?: boolean;
}

/** A card in a list: who it is and what it fires on. */
export function cardSummary(meta: CardMeta, opts: SummaryOptions = {}) {
  return {
    key: meta.key,
    kind: meta.kind,
    ...(opts.path !== false && { path: meta.path }),
    title: meta.title,
    keywords: meta.keywords,
    ...(opts.compact
      ? compactFlags(meta)
      : { aliases: meta.aliases, enabled: meta.enabled, inject: meta.inject }),
    ...(opts.preview && { preview: meta.firstLine, mtime: isoFromNs(meta.mtime) }),
    ...(meta.tags && { tags: meta.tags }),
  };
}

function compactFlags(meta: CardMeta): { aliases?: string[]; enabled?: false; inject?: false } {
  return {
    ...(meta.aliases.length > 0 && { aliases: meta.aliases }),
    ...(!meta.enabled && { enabled: false as const }),
    ...(!meta.inject && { inject: false as const }),
  };
}

/** Kinds by name, then titles: the order a person reads a list in (`list`, MCP list_cards). */
export function byKindThenTitle(a: CardMeta, b: CardMeta): number {
  return a.kind === b.kind ? a.title.localeCompare(b.title) : a.kind.localeCompare(b.kind);
}

/** A file that could not be parsed; with `names`, its kind and key too (the editor offers to fix it). */
export function brokenSummary(b: BrokenCard, opts: { names?: boolean } = {}) {
  return { ...(opts.names && { kind: b.kind, key: b.key }), path: b.path, error: b.error };
}

/** The rules only decorators set, by the decorator's name (card spec §9). */
const DECORATOR_RULES = [
  ["additionalKeys", "additional_keys"],
  ["excludeKeys", "exclude_keys"],
  ["activateOnlyAfter", "activate_only_after"],
  ["activateOnlyEvery", "activate_only_every"],
  ["keepAfterMatch", "keep_activate_after_match"],
  ["dontAfterMatch", "dont_activate_after_match"],
] as const;

/**
 * A card's lorebook rules in its frontmatter's words (`context`, `case_sensitive`, `position`, …; a
 * rule only decorators set by the decorator's name), only those that differ from the defaults: {} for
 * a plain card. What the card does, whether the frontmatter or a decorator said it.
 */
export function rulesJson(rules: CardRules | undefined): Record<string, unknown> {
  if (rules === undefined) return {};
  const changes = rulesChanges(rules) as Record<string, unknown> & { placement?: CardPlacement };
  const out: Record<string, unknown> = {};
  for (const { field, rule } of RULE_FIELDS) {
    const value = rule.startsWith("placement.")
      ? changes.placement?.[rule.slice("placement.".length) as keyof CardPlacement]
      : changes[rule];
    if (value !== undefined && value !== null) out[field] = value;
  }
  for (const [rule, name] of DECORATOR_RULES) if (changes[rule] !== undefined) out[name] = changes[rule];
  return out;
}

/** Secondary words in the frontmatter's words: `not_all` for NOT ALL. */
export function secondaryJson(s: Secondary) {
  return { all: s.all, any: s.any, not: s.not, not_all: s.notAll };
}

export interface DocumentOptions {
  /** `warnings` and `mtime` (default true), for a script that edits the file next (`read --json`). */
  file?: boolean;
  /** For an agent (MCP read_card): the section update_recent rewrites in this kind, and what private means. */
  agent?: KindDef;
}

const PRIVATE_NOTE = "Sections marked private are stored in the card but never injected into a conversation.";

/**
 * A whole card as written: every frontmatter key and every section, private ones marked, and `rules`,
 * what its lorebook fields and decorators resolve to (rulesJson).
 */
export function cardDocument(card: Card, opts: DocumentOptions = {}) {
  return {
    key: card.key,
    kind: card.kind,
    path: card.path,
    title: card.title,
    frontmatter: card.frontmatter,
    rules: rulesJson(card.rules),
    preamble: card.preamble,
    sections: card.sections.map((s) => ({ heading: s.heading, text: s.text, private: s.private })),
    ...(opts.file !== false && { warnings: card.warnings, mtime: isoFromNs(card.mtime) }),
    ...(opts.agent && { recent_section: opts.agent.recent ?? null, private_note: PRIVATE_NOTE }),
  };
}

const KNOWN = new Set<string>(KNOWN_FIELDS);

/** The `{{comment:…}}` notes of the card's public text and the macros it uses that lorecards does not know. */
function macrosJson(card: Card): { comments: string[]; unknown: string[] } {
  const read = readMacros(publicText(card));
  return { comments: read.comments, unknown: [...new Set(read.unknown)] };
}

function trimSection(text: string): string {
  return text.replace(/^\n+/, "").replace(/\s+$/, "");
}

/** Section → text: the kind's own sections first (empty when absent), then every other heading in file order. */
export function cardFields(card: Card, kind: KindDef): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const s of kind.sections) fields[s] = "";
  for (const s of card.sections) {
    const text = trimSection(s.text);
    fields[s.heading] = fields[s.heading] ? `${fields[s.heading]}\n\n${text}` : text;
  }
  return fields;
}

/**
 * A card as the editor's form: every frontmatter key, the known fields normalised, `fields` = section →
 * text, `extra` = the frontmatter keys the form has no control for (the lorebook fields among them,
 * as written), `rules` = what the lorebook fields and decorators resolve to (rulesJson), `macros` =
 * what the text's macros hold that the model never reads (the `{{comment:…}}` notes to show beside the
 * text, and the macros lorecards does not know, sent as written), and `mtime` as ISO 8601 with
 * nanoseconds (src/wire.ts): a JSON number would round them away in a browser.
 */
export function cardForm(card: Card, kind: KindDef) {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(card.frontmatter)) if (!KNOWN.has(k)) extra[k] = v;
  return {
    ...card.frontmatter,
    kind: card.kind,
    key: card.key,
    path: card.path,
    title: card.title,
    keywords: card.keywords,
    aliases: card.aliases,
    secondary: secondaryJson(card.secondary),
    scan_depth: card.scanDepth,
    refs: card.refs,
    priority: card.priority,
    enabled: card.enabled,
    inject: card.inject,
    tags: card.tags ?? [],
    rules: rulesJson(card.rules),
    macros: macrosJson(card),
    fields: cardFields(card, kind),
    preamble: trimSection(card.preamble),
    body: card.body,
    extra,
    warnings: card.warnings,
    mtime: isoFromNs(card.mtime),
  };
}
