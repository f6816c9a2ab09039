/**
 * What the three tools do, without the protocol: each takes the vault and validated arguments and
 * returns plain data, or throws a LoreError naming the problem. Every write goes through vault/
 * (locked, atomic), so an MCP write and a UI or CLI write at the same moment lose nothing.
 */
import { keyFromTitle, keyProblem, kindByName } from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { createCard, findCard, loadIndex, readCard, updateRecent, type Vault } from "../vault/index.ts";
import {
  LIST_DEFAULT_LIMIT,
  type ListCardsArgs,
  type ReadCardArgs,
  recentKinds,
  type WriteCardArgs,
} from "./schemas.ts";

const CREATE_FIELDS = ["kind", "title", "key", "keywords", "aliases", "sections"] as const;
const RECENT_FIELDS = ["name", "kind", "text"] as const;

export type WriteResult = {
  status: "created" | "updated";
  kind: string;
  key: string;
  path: string;
  title: string;
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
  const card = args.mode === "create" ? await create(vault, args) : await recent(vault, args);
  return {
    status: args.mode === "create" ? "created" : "updated",
    kind: card.kind,
    key: card.key,
    path: card.path,
    title: card.title,
  };
}

async function create(vault: Vault, args: WriteCardArgs): Promise<Card> {
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
  const body = (args.sections ?? []).map((s) => `## ${s.heading}\n${s.text.trim()}\n`).join("\n");
  return createCard(vault, { kind: kind.name, key, frontmatter, body });
}

/** A new card may not share its key or title with any card of any kind: names must stay unambiguous. */
function refuseTakenName(vault: Vault, names: string[]): void {
  const wanted = new Set(names.map((n) => n.trim().toLowerCase()));
  const { cards } = loadIndex(vault);
  const taken = cards.find((c) => wanted.has(c.key.toLowerCase()) || wanted.has(c.title.toLowerCase()));
  if (taken) {
    throw new LoreError(
      "conflict",
      `a card named "${taken.title}" already exists (${taken.kind}/${taken.key}); ` +
        'use mode "update_recent" to change its recent section, or choose another title',
    );
  }
}

async function recent(vault: Vault, args: WriteCardArgs): Promise<Card> {
  if (args.name === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the card\'s name');
  if (args.text === undefined)
    throw new LoreError("invalid_input", 'mode "update_recent" needs the new text');
  const card = locate(vault, args.name, args.kind);
  if (kindByName(vault.kinds, card.kind).recent === undefined) {
    const some = recentKinds(vault.kinds);
    throw new LoreError(
      "invalid_input",
      `${card.kind} cards have no recent section, so "${card.title}" cannot be updated this way` +
        (some.length > 0 ? ` (cards with one: ${some.join(", ")})` : ""),
    );
  }
  return updateRecent(vault, card.kind, card.key, args.text);
}

function locate(vault: Vault, name: string, kind: string | undefined): Card {
  if (kind === undefined) return findCard(vault, name);
  const def = kindByName(vault.kinds, kind);
  if (keyProblem(name) === null) {
    try {
      return readCard(vault, def.name, name);
    } catch (err) {
      if (!(err instanceof LoreError) || err.code !== "not_found") throw err;
    }
  }
  const wanted = name.trim().toLowerCase();
  const hit = loadIndex(vault).cards.find(
    (c) => c.kind === def.name && (c.key.toLowerCase() === wanted || c.title.toLowerCase() === wanted),
  );
  if (!hit) throw new LoreError("not_found", `no ${def.name} card named "${name}"`);
  return readCard(vault, hit.kind, hit.key);
}

/** Everything in the card: every frontmatter key and every section, private ones marked. */
export function readCardData(vault: Vault, args: ReadCardArgs) {
  const card = locate(vault, args.name, args.kind);
  return {
    kind: card.kind,
    key: card.key,
    path: card.path,
    title: card.title,
    frontmatter: card.frontmatter,
    preamble: card.preamble,
    sections: card.sections.map((s) => ({ heading: s.heading, text: s.text, private: s.private })),
    recent_section: kindByName(vault.kinds, card.kind).recent ?? null,
    private_note: "Sections marked private are stored in the card but never injected into a conversation.",
  };
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
  const shown = cards
    .filter((c) => kind === undefined || c.kind === kind)
    .sort((a, b) => (a.kind === b.kind ? a.title.localeCompare(b.title) : a.kind.localeCompare(b.kind)));
  const page = shown.slice(offset, offset + limit);
  return {
    total: shown.length,
    offset,
    count: page.length,
    next_offset: offset + page.length < shown.length ? offset + page.length : null,
    cards: page.map((c) => ({
      kind: c.kind,
      key: c.key,
      title: c.title,
      keywords: c.keywords,
      ...(c.aliases.length > 0 ? { aliases: c.aliases } : {}),
      ...(c.enabled ? {} : { enabled: false as const }),
      ...(c.inject ? {} : { inject: false as const }),
    })),
    unreadable: broken
      .filter((b) => kind === undefined || b.kind === kind)
      .map((b) => ({ path: b.path, error: b.error })),
  };
}
