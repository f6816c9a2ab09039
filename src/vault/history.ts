/**
 * Card history (README "History"): every create, update, archive, restore, import and revert of a card
 * records a version (when, which runtime wrote it, the whole text before and after) in
 * `<vault>/.lorecards/history.db` (_history-db.ts). The vault's write functions record it themselves,
 * under the lock they write under, right after the card file is in place.
 *
 * The card comes first. A version is recorded after the card write succeeded, and recording never
 * throws: a history file that is damaged is moved aside and a new one started (the version is then
 * written there); any other failure (a full disk, a read-only state folder) is one line on stderr and
 * the card write stands. A process killed between the two loses that version only, and the next
 * version's text before still shows what the card held. A card keeps its newest HISTORY_CAP versions.
 */
import { describeError } from "../errors.ts";
import { isCorrupt, moveAside } from "../sqlite-file.ts";
import {
  damaged,
  historyPath,
  type NewVersion,
  openHistory,
  queries,
  type StateRow,
  type VersionRow,
} from "./_history-db.ts";
import type { Vault } from "./paths.ts";

export type { StateRow, VersionRow };

/** Which runtime wrote a card: the editor, another HTTP client, an MCP client, the CLI, an import, the hook. */
export const WRITERS = ["ui", "api", "mcp", "cli", "import", "hook"] as const;
export type Writer = (typeof WRITERS)[number];

export type Action = "create" | "update" | "archive" | "restore" | "import" | "revert";

/** Versions kept per card; older ones are dropped as new ones come. */
export const HISTORY_CAP = 50;

export interface HistoryOptions {
  /** Who is writing; default "cli". */
  writer?: Writer;
}

/** One card's change. `before`/`after` null: there was / is no live card (a create, an archive). */
export interface Change {
  kind: string;
  key: string;
  action: Action;
  before: string | null;
  after: string | null;
  /** For a revert: the version gone back to. */
  revertedTo?: number;
}

export interface RecordOptions {
  now?: number;
  /** Where the one line about a failure goes; default stderr. */
  warn?: (line: string) => void;
}

function stderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Records the changes as one transaction. Never throws (see the module comment). */
export function recordChanges(
  vault: Vault,
  writer: Writer,
  changes: readonly Change[],
  opts: RecordOptions = {},
): void {
  if (changes.length === 0) return;
  const now = opts.now ?? Date.now();
  const warn = opts.warn ?? stderr;
  const rows: NewVersion[] = changes.map((c) => ({
    kind: c.kind,
    key: c.key,
    at: now,
    writer,
    action: c.action,
    before: c.before,
    after: c.after,
    reverted_to: c.revertedTo ?? null,
  }));
  try {
    insert(vault.root, rows);
  } catch (err) {
    if (!isCorrupt(err)) {
      warn(
        `lorecards: the card was written, its version was not recorded in history.db: ${describeError(err)}`,
      );
      return;
    }
    try {
      const aside = moveAside(historyPath(vault.root), now);
      insert(vault.root, rows);
      warn(
        `lorecards: ${historyPath(vault.root)} could not be read (${describeError(err)}); moved to ${aside}, ` +
          "a new history started",
      );
    } catch (again) {
      warn(`lorecards: the card was written, its version was not recorded: ${describeError(again)}`);
    }
  }
}

function insert(root: string, rows: NewVersion[]): void {
  const db = openHistory(root, true)!;
  try {
    const q = queries(db);
    db.transaction(() => {
      for (const row of rows) q.insert.run({ ...row });
      const cards = new Map(rows.map((r) => [`${r.kind}\n${r.key}`, r]));
      for (const r of cards.values()) q.prune.run({ kind: r.kind, key: r.key, keep: HISTORY_CAP });
    }).immediate();
  } finally {
    db.close();
  }
}

/** Runs `fn` on the history file; `empty` when there is none. A damaged file is an io_error. */
function reading<T>(vault: Vault, empty: T, fn: (q: ReturnType<typeof queries>) => T): T {
  let db: ReturnType<typeof openHistory>;
  try {
    db = openHistory(vault.root, false);
    if (db === null) return empty;
  } catch (err) {
    throw damaged(vault.root, err);
  }
  try {
    return fn(queries(db));
  } catch (err) {
    throw isCorrupt(err) ? damaged(vault.root, err) : err;
  } finally {
    db.close();
  }
}

/** A card's kept versions, newest first. */
export function readHistory(vault: Vault, kind: string, key: string): VersionRow[] {
  return reading(vault, [], (q) => q.ofCard.all({ kind, key }));
}

/** One version by number, or null. */
export function readVersion(vault: Vault, id: number): VersionRow | null {
  return reading(vault, null, (q) => q.one.get({ id }));
}

/** The newest version number at or before `at` (ms), or of all when `at` is undefined; 0 when none. */
export function versionAt(vault: Vault, at?: number): number {
  return reading(vault, 0, (q) => (at === undefined ? q.newest.get({}) : q.newestAt.get({ at }))?.id ?? 0);
}

/** Every card that has history, as it was right after version `id` (see StateRow). */
export function statesAt(vault: Vault, id: number): StateRow[] {
  return reading(vault, [], (q) => q.statesAt.all({ id }));
}

/** The cards in history whose key is `key` (any case), for finding a card that is no longer live. */
export function historyNames(vault: Vault, key: string): { kind: string; key: string }[] {
  return reading(vault, [], (q) => q.names.all({ key }));
}
