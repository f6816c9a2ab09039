/**
 * What the three tools do, without the protocol: each takes the vault and validated arguments and
 * returns plain data, or throws a LoreError naming the problem. Every write goes through vault/
 * (locked, atomic), so an MCP write and a UI or CLI write at the same moment lose nothing.
 */
import {
  brokenSummary,
  byKindThenTitle,
  cardDocument,
  cardSummary,
  keyFromTitle,
  keyProblem,
  kindByName,
  replaceSection,
} from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { vetCreate, vetUpdate } from "../check/vet.ts";
import type { WriteWarning } from "../check/writes.ts";
import { LoreError } from "../errors.ts";
import { createCard, findCard, indexLookup, loadIndex, updateRecent, type Vault } from "../vault/index.ts";
import {
  LIST_DEFAULT_LIMIT,
  type ListCardsArgs,
  type ReadCardArgs,
  recentKinds,
  type WriteCardArgs,
} from "./schemas.ts";

const CREATE_FIELDS = ["kind", "title", "key", "keywords", "aliases", "priority", "sections"] as const;
const RECENT_FIELDS = ["name", "kind", "text"] as const;

export type WriteResult = {
  status: "created" | "updated";
  kind: string;
  key: string;
  path: string;
  title: string;
  /** What the write checks found worth fixing (check/writes.ts); a refused write throws instead. */
  warnings: WriteWarning[];
};

export async function writeCard(vault: Vault, args: WriteCardArgs): Promise<WriteResult> {
  const allowed: readonly string[] = args.mode === "create" ? CREATE_FIELDS : RECENT_FIELDS;
  const stray = Object.entries(args).filter(
    ([k, v]) => k !== "mode" && v !== undefined && !allowed.includes(k),
  );
  if (stray.length > 0) {
    throw new LoreError(
      "invalid_input",
      `mode "${args.mode}" does not take ${stray.map(([k]) => k).join(", ")} (it takes ${allowed.join(", ")})`,
    );
  }
  const { card, warnings } = args.mode === "create" ? await create(vault, args) : await recent(vault, args);
  return {
    status: args.mode === "create" ? "created" : "updated",
    kind: card.kind,
    key: card.key,
    path: card.path,
    title: card.title,
    warnings,
  };
}

type Written = { card: Card; warnings: WriteWarning[] };

async function create(vault: Vault, args: WriteCardArgs): Promise<Written> {
  if (args.kind === undefined) throw new LoreError("invalid_input", 'mode "create" needs a kind');
  if (args.title === undefined) throw new LoreError("invalid_input", 'mode "create" needs a title');
  const kind = kindByName(vault.kinds, args.kind);
  const key = args.key ?? args.title;
  const problem = keyProblem(key);
  if (problem !== null) {
    // Say what to change: a legal file name made from what was given.
    const instead = JSON.stringify(keyFromTitle(key));
    const hint =
      args.key === undefined
        ? `pass a key (the file name) instead, for example ${instead}`
        : `choose another key, for example ${instead}`;
    throw new LoreError("invalid_key", `${problem}: ${JSON.stringify(key)}; ${hint}`);
  }
  refuseTakenName(vault, [key, args.title]);
  const headings = new Set<string>();
  for (const s of args.sections ?? []) {
    const h = s.heading.toLowerCase();
    if (headings.has(h)) throw new LoreError("invalid_input", `section "${s.heading}" is given twice`);
    headings.add(h);
  }
  const frontmatter: Record<string, unknown> = {
    kind: kind.name,
    title: args.title,
    keywords: args.keywords ?? [],
  };
  if (args.aliases && args.aliases.length > 0) frontmatter.aliases = args.aliases;
  if (args.priority !== undefined && args.priority !== 0) frontmatter.priority = args.priority;
  const body = (args.sections ?? []).map((s) => `## ${s.heading}\n${s.text.trim()}\n`).join("\n");
  const draft = { kind: kind.name, key, frontmatter, body };
  const warnings = vetCreate(vault, draft);
  return { card: await createCard(vault, draft, { writer: "mcp" }), warnings };
}

/**
 * A new card may not share its key or title with any card of any kind: names must stay unambiguous.
 * "Shares" is the rule every name lookup follows (vault/ lookup): whatever `read_card` would find.
 */
function refuseTakenName(vault: Vault, names: string[]): void {
  const lookup = indexLookup(vault.kinds, loadIndex(vault));
  const taken = names.map((n) => lookup.find(n)).find((c) => c !== undefined);
  if (taken) {
    throw new LoreError(
      "conflict",
      `a card named "${taken.title}" already exists (${taken.kind}/${taken.key}); ` +
        'use mode "update_recent" to change its recent section, or choose another title',
    );
  }
}

async function recent(vault: Vault, args: WriteCardArgs): Promise<Written> {
  if (args.name === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the card\'s name');
  if (args.text === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the new text');
  const card = findCard(vault, args.name, args.kind);
  if (kindByName(vault.kinds, card.kind).recent === undefined) {
    const some = recentKinds(vault.kinds);
    throw new LoreError(
      "invalid_input",
      `${card.kind} cards have no recent section, so "${card.title}" cannot be updated this way` +
        (some.length > 0 ? ` (cards with one: ${some.join(", ")})` : ""),
    );
  }
  const { text } = args;
  const heading = kindByName(vault.kinds, card.kind).recent!;
  const warnings = vetUpdate(vault, card.kind, card.key, (old) => replaceSection(old, heading, text));
  return { card: await updateRecent(vault, card.kind, card.key, text, { writer: "mcp" }), warnings };
}

/** Everything in the card: every frontmatter key and every section, private ones marked. */
export function readCardData(vault: Vault, args: ReadCardArgs) {
  const card = findCard(vault, args.name, args.kind);
  return cardDocument(card, { file: false, agent: kindByName(vault.kinds, card.kind) });
}

/**
 * One page of cards, sorted by kind then title. Entries are compact (aliases only when there are some,
 * `enabled`/`inject` only when switched off), so a page of a large vault stays small.
 */
export function listCardsData(vault: Vault, args: ListCardsArgs) {
  const kind = args.kind === undefined ? undefined : kindByName(vault.kinds, args.kind).name;
  const offset = args.offset ?? 0;
  const limit = args.limit ?? LIST_DEFAULT_LIMIT;
  const { cards, broken } = loadIndex(vault);
  const shown = cards.filter((c) => kind === undefined || c.kind === kind).sort(byKindThenTitle);
  const page = shown.slice(offset, offset + limit);
  return {
    total: shown.length,
    offset,
    count: page.length,
    next_offset: offset + page.length < shown.length ? offset + page.length : null,
    cards: page.map((c) => cardSummary(c, { path: false, compact: true })),
    unreadable: broken.filter((b) => kind === undefined || b.kind === kind).map((b) => brokenSummary(b)),
  };
}
