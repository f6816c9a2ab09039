/**
 * What the three tools do, without the protocol: each takes the vault (with the book it is, when one
 * was named: books.ts) and validated arguments and returns plain data, or throws a LoreError naming the
 * problem. Every write goes through writes/ and
 * vault/ (checked, locked, atomic), so an MCP write and a UI or CLI write at the same moment lose
 * nothing and meet the same rules.
 */
import { brokenSummary, byKindThenTitle, cardDocument, cardSummary, kindByName } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { cardTextAt, findCard, loadIndex, parseAsOf, type Vault } from "../vault/index.ts";
import type { WriteWarning } from "../vet/index.ts";
import { createFromFields, updateSectionOf, type Written } from "../writes/index.ts";
import { bookFlagOf, booksBeside, findSaying, type ServedBook } from "./books.ts";
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
  /** What the write checks found worth fixing (vet/rules.ts); a refused write throws instead. */
  warnings: WriteWarning[];
};

export async function writeCard(vault: Vault, args: WriteCardArgs, book?: ServedBook): Promise<WriteResult> {
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
  const { card, warnings } =
    args.mode === "create" ? await create(vault, args, book) : await recent(vault, args, book);
  return {
    status: args.mode === "create" ? "created" : "updated",
    kind: card.kind,
    key: card.key,
    path: card.path,
    title: card.title,
    warnings,
  };
}

async function create(vault: Vault, args: WriteCardArgs, book: ServedBook | undefined): Promise<Written> {
  if (args.kind === undefined) throw new LoreError("invalid_input", 'mode "create" needs a kind');
  if (args.title === undefined) throw new LoreError("invalid_input", 'mode "create" needs a title');
  return createFromFields(
    vault,
    {
      kind: args.kind,
      title: args.title,
      key: args.key,
      keywords: args.keywords,
      aliases: args.aliases,
      priority: args.priority,
      sections: args.sections,
    },
    {
      writer: "mcp",
      keyName: "a key (the file name)",
      whenTaken: 'use mode "update_recent" to change its recent section, or choose another title',
      bookFlag: bookFlagOf(book),
    },
  );
}

async function recent(vault: Vault, args: WriteCardArgs, book: ServedBook | undefined): Promise<Written> {
  if (args.name === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the card\'s name');
  if (args.text === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the new text');
  const name = args.name;
  const card = findSaying(vault, book, name, () => findCard(vault, name, args.kind));
  const heading = kindByName(vault.kinds, card.kind).recent;
  if (heading === undefined) {
    const some = recentKinds(vault.kinds);
    throw new LoreError(
      "invalid_input",
      `${card.kind} cards have no recent section, so "${card.title}" cannot be updated this way` +
        (some.length > 0 ? ` (cards with one: ${some.join(", ")})` : ""),
    );
  }
  return updateSectionOf(vault, `${card.kind}/${card.key}`, heading, args.text, { writer: "mcp" });
}

/** Everything in the card: every frontmatter key and every section, private ones marked. */
export function readCardData(vault: Vault, args: ReadCardArgs, book?: ServedBook) {
  const card = findSaying(vault, book, args.name, () => findCard(vault, args.name, args.kind));
  const now = cardDocument(card, { file: false, agent: kindByName(vault.kinds, card.kind) });
  if (args.as_of === undefined) return now;
  // The card as it was, beside it as it is (the writing app's use(node, snapshot=id)).
  const then = cardTextAt(vault, card.kind, card.key, parseAsOf(args.as_of, "invalid_input", "as_of"));
  if (then === null)
    throw new LoreError("not_found", `${card.kind}/${card.key} has no version at or before ${args.as_of}`);
  return { ...now, earlier: { version: then.version, at: new Date(then.at).toISOString(), text: then.text } };
}

/**
 * One page of cards, sorted by kind then title. Entries are compact (aliases only when there are some,
 * `enabled`/`inject` only when switched off), so a page of a large vault stays small. Served unasked,
 * the vault's books follow, as `lorecards list` ends with them.
 */
export function listCardsData(vault: Vault, args: ListCardsArgs, book?: ServedBook) {
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
    ...booksBeside(vault, book),
  };
}
