/**
 * Reading and writing live cards. Every write takes the vault lock and replaces the file atomically;
 * an update may carry the mtime the caller read, and a card that changed since is a conflict carrying
 * the current card, so nobody silently overwrites someone else's edit. Each write then records a
 * version in the card's history (history.ts), under the same lock, attributed to `opts.writer`.
 */
import fs from "node:fs";
import path from "node:path";
import {
  type CardEdit,
  cardAt,
  keyProblem,
  kindByName,
  parseCard,
  pathKeyProblem,
  replaceSection,
  serializeCard,
  updateCardText,
} from "../card/index.ts";
import type { Card, CardDraft } from "../card/types.ts";
import { describeError, LoreError } from "../errors.ts";
import { advanceMtime, atomicWrite } from "./_fs.ts";
import { openNoFollow, refuseLinks } from "./_links.ts";
import { settleImports, withSettledLock } from "./_settle.ts";
import { removeStaleTemps } from "./_temps.ts";
import { loadIndex, recordOwnWrite } from "./catalog.ts";
import { type Action, type HistoryOptions, recordChanges } from "./history.ts";
import type { LockOptions } from "./lock.ts";
import { cleanName, indexLookup, splitName } from "./lookup.ts";
import { cardPath, relPath, type Vault } from "./paths.ts";

export interface WriteOptions extends LockOptions, HistoryOptions {
  /** The card's mtime as read (CardMeta.mtime); a different current mtime is a conflict. */
  mtime?: string;
  /**
   * The card's size as read (CardMeta.size), checked with `mtime`: file times are coarse on some
   * systems (a few ms), so two writes can share an mtime; the size usually tells them apart.
   */
  size?: number;
}

/** Read a card file and its exact stats from one open file descriptor, never through a link. */
export function readRaw(vault: Vault, kind: string, key: string): { text: string; card: Card } {
  const file = cardPath(vault, kind, key);
  const def = kindByName(vault.kinds, kind);
  let fd: number;
  try {
    fd = openNoFollow(vault, file);
  } catch (err) {
    if (err instanceof LoreError) throw err;
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new LoreError("not_found", `no ${def.name} card named "${key}"`);
    }
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const text = fs.readFileSync(fd, "utf8");
    const card = parseCard(text, {
      kind: def.name,
      key,
      path: relPath(vault, file),
      kinds: vault.kinds,
      mtime: st.mtimeNs.toString(),
      size: Number(st.size),
    });
    return { text, card };
  } finally {
    fs.closeSync(fd);
  }
}

/** One card, fully parsed. LoreError not_found / parse_error / unknown_kind / invalid_key. */
export function readCard(vault: Vault, kind: string, key: string): Card {
  settleImports(vault);
  return readRaw(vault, kind, key).card;
}

/**
 * A card by name (the rule is vault/lookup.ts's), only among `kind`'s cards when given (a kind's name or
 * folder); a name two enabled cards answer to alike is a conflict naming both. A name the index does
 * not know is still tried as a file name, so a card that cannot be parsed, or a link where a card
 * should be, says what is wrong with it instead of "not found".
 */
export function findCard(vault: Vault, given: string, kind?: string): Card {
  const only = kind === undefined ? undefined : kindByName(vault.kinds, kind);
  const matches = indexLookup(vault.kinds, loadIndex(vault)).named(given, { kind: only?.name });
  // Two enabled cards of one name (`Characters/Ash`, `Lore/Ash`) are asked apart: the first by the
  // lookup's order was read, and updated, whichever the person meant.
  const live = matches.filter((c) => c.enabled);
  if (live.length > 1)
    throw new LoreError(
      "conflict",
      `"${given}" names ${live.length} cards: ${live.map((c) => `${c.kind}/${c.key}`).join(", ")}; name one of them so`,
    );
  const hit = live[0] ?? matches[0];
  if (hit) return readCard(vault, hit.kind, hit.key);
  const { prefix, key } = splitName(cleanName(given));
  const named = vault.kinds.kinds.find((k) => k.name === prefix || (k.dir !== "" && k.dir === prefix));
  const name = named ? key : cleanName(given);
  const problem = pathKeyProblem(name);
  if (problem !== null) throw new LoreError("invalid_key", `"${given}" cannot be a card name: ${problem}`);
  for (const k of only ? [only] : named ? [named] : vault.kinds.kinds) {
    const file = cardPath(vault, k.name, name);
    // Only a file the vault itself takes for a card of that kind: a path into a folder it skips
    // (`books/eldoria/Glade`, `_archive/Ash`) is another book's card or none, never an `entry` here.
    if (cardAt(vault.kinds, relPath(vault, file))?.kind.name !== k.name) continue;
    if (fs.existsSync(file)) return readCard(vault, k.name, name);
  }
  throw new LoreError("not_found", `no ${only ? `${only.name} ` : ""}card named "${given}"`);
}

/**
 * Write a new card; LoreError conflict when the name is taken in that kind, forbidden when the card or
 * its kind folder is a symbolic link.
 */
export async function createCard(
  vault: Vault,
  draft: CardDraft,
  opts: LockOptions & HistoryOptions = {},
): Promise<Card> {
  // A new card is one file in its kind's folder; sub-folders are the person's own.
  const problem = keyProblem(draft.key);
  if (problem !== null) throw new LoreError("invalid_key", `${problem}: ${JSON.stringify(draft.key)}`);
  const file = cardPath(vault, draft.kind, draft.key);
  const text = serializeCard(draft);
  return withSettledLock(
    vault,
    () => {
      refuseLinks(vault, file);
      if (fs.existsSync(file)) {
        throw new LoreError("conflict", `a ${draft.kind} card named "${draft.key}" already exists`);
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      removeStaleTemps(path.dirname(file));
      recordOwnWrite(vault, file, () => atomicWrite(file, text));
      const change = { kind: kindByName(vault.kinds, draft.kind).name, key: draft.key, after: text };
      recordChanges(vault, opts.writer ?? "cli", [{ ...change, action: "create", before: null }]);
      return readCard(vault, draft.kind, draft.key);
    },
    opts,
  );
}

/** How a rewrite is recorded in history: an update unless said otherwise. */
export interface RewriteOptions extends WriteOptions {
  action?: Action;
  revertedTo?: number;
}

/** The one locked read-check-replace every change of a live card goes through (revert.ts too). */
export async function rewrite(
  vault: Vault,
  kind: string,
  key: string,
  opts: RewriteOptions,
  change: (text: string, card: Card) => string,
): Promise<Card> {
  const file = cardPath(vault, kind, key);
  return withSettledLock(
    vault,
    () => {
      const { text, card } = readRaw(vault, kind, key);
      const moved = opts.mtime !== undefined && opts.mtime !== card.mtime;
      if (moved || (opts.size !== undefined && opts.size !== card.size)) {
        throw new LoreError("conflict", `"${key}" changed since it was read`, { data: card });
      }
      const next = change(text, card);
      if (next === text) return card;
      removeStaleTemps(path.dirname(file));
      recordOwnWrite(vault, file, () => {
        atomicWrite(file, next);
        advanceMtime(file, card.mtime);
      });
      const { action = "update", revertedTo } = opts;
      recordChanges(vault, opts.writer ?? "cli", [
        { kind: card.kind, key, action, before: text, after: next, revertedTo },
      ]);
      return readCard(vault, kind, key);
    },
    opts,
  );
}

/**
 * Update a card's frontmatter and/or body, keeping comments, quoting and unknown keys
 * (see updateCardText for the rules). LoreError not_found, conflict (data = current card).
 */
export function updateCard(
  vault: Vault,
  kind: string,
  key: string,
  edit: CardEdit,
  opts: WriteOptions = {},
): Promise<Card> {
  return rewrite(vault, kind, key, opts, (text) => updateCardText(text, edit));
}

/** Replace only the text of one section (appended when missing); every other byte stays. */
export function updateSection(
  vault: Vault,
  kind: string,
  key: string,
  heading: string,
  content: string,
  opts: WriteOptions = {},
): Promise<Card> {
  return rewrite(vault, kind, key, opts, (text) => replaceSection(text, heading, content));
}

/** Replace only the text of the kind's recent section (appended when missing); every other byte stays. */
export function updateRecent(
  vault: Vault,
  kind: string,
  key: string,
  content: string,
  opts: WriteOptions = {},
): Promise<Card> {
  const def = kindByName(vault.kinds, kind);
  if (def.recent === undefined) {
    return Promise.reject(new LoreError("invalid_input", `${def.name} cards have no recent section`));
  }
  return updateSection(vault, kind, key, def.recent, content, opts);
}
