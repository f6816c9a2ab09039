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
import { describeError, warnOnStderr } from "../errors.ts";
import { isCorrupt, moveAside } from "../sqlite-file.ts";
import {
  damaged,
  historyPath,
  type NewVersion,
  openHistory,
  queries,
  type StateRow,
  type StepRow,
  unreadable,
  type VersionRow,
} from "./_history-db.ts";
import type { Vault } from "./paths.ts";

export type { StateRow, StepRow, VersionRow };

/** Which runtime wrote a card: the editor, another HTTP client, an MCP client, the CLI, an import, the hook. */
export const WRITERS = ["ui", "api", "mcp", "cli", "import", "hook"] as const;
export type Writer = (typeof WRITERS)[number];

/**
 * What a version did to its card. `move`: the card changed kind, so it left one name (after null) and
 * arrived under another (before null), two versions of one step. `undo`: a step taken back.
 */
export type Action = "create" | "update" | "archive" | "restore" | "import" | "revert" | "move" | "undo";

/** What a step was, when its versions alone do not say: many cards changed at once, or an undo. */
export type StepAction = Action | "bulk";

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

/** How a write's versions are recorded together as one step (see _history-db.ts). */
export interface StepInfo {
  /** Default: the versions' action when they share one, else `bulk`. */
  action?: StepAction;
  /** For an undo: the step it takes back. */
  undoes?: number;
  /** One line about the step: the file an import read, what a bulk action set. */
  note?: string;
}

export interface RecordOptions {
  now?: number;
  step?: StepInfo;
  /** Where the one line about a failure goes; default stderr. */
  warn?: (line: string) => void;
}

/**
 * Records the changes as one step, in one transaction; returns the step's number, or null when nothing
 * was recorded (no change, or a failure said on `warn`). Never throws (see the module comment).
 */
export function recordChanges(
  vault: Vault,
  writer: Writer,
  changes: readonly Change[],
  opts: RecordOptions = {},
): number | null {
  if (changes.length === 0) return null;
  const now = opts.now ?? Date.now();
  const warn = opts.warn ?? warnOnStderr;
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
  const actions = new Set(changes.map((c) => c.action));
  const step = {
    at: now,
    writer,
    action: opts.step?.action ?? (actions.size === 1 ? changes[0]!.action : "bulk"),
    cards: rows.length,
    undoes: opts.step?.undoes ?? null,
    note: opts.step?.note ?? null,
  };
  try {
    return insert(vault.root, rows, step);
  } catch (err) {
    if (!isCorrupt(err)) {
      warn(
        `lorecards: the card was written, its version was not recorded in history.db: ${describeError(err)}`,
      );
      return null;
    }
    try {
      const aside = moveAside(historyPath(vault.root), now);
      const id = insert(vault.root, rows, step);
      warn(
        `lorecards: ${historyPath(vault.root)} could not be read (${describeError(err)}); moved to ${aside}, ` +
          "a new history started",
      );
      return id;
    } catch (again) {
      warn(`lorecards: the card was written, its version was not recorded: ${describeError(again)}`);
      return null;
    }
  }
}

function insert(root: string, rows: NewVersion[], step: Omit<StepRow, "id">): number {
  const db = openHistory(root, true)!;
  try {
    const q = queries(db);
    return db
      .transaction(() => {
        // The step is numbered after its first version (see _history-db.ts).
        const id = Number(q.insert.run({ ...rows[0]!, step: null }).lastInsertRowid);
        q.stepOfFirst.run({ id });
        for (const row of rows.slice(1)) q.insert.run({ ...row, step: id });
        q.insertStep.run({ id, ...step });
        const cards = new Map(rows.map((r) => [`${r.kind}\n${r.key}`, r]));
        for (const r of cards.values()) q.prune.run({ kind: r.kind, key: r.key, keep: HISTORY_CAP });
        return id;
      })
      .immediate();
  } finally {
    db.close();
  }
}

/**
 * Runs `fn` on the history file; `empty` when there is none. A damaged file, and one that cannot be
 * opened (a full disk: WAL mode needs its -shm), are io_errors, each said as what it is: only a
 * damaged one is moved aside by the next write.
 */
function reading<T>(vault: Vault, empty: T, fn: (q: ReturnType<typeof queries>) => T): T {
  let db: ReturnType<typeof openHistory>;
  try {
    db = openHistory(vault.root, false);
    if (db === null) return empty;
  } catch (err) {
    throw isCorrupt(err) ? damaged(vault.root, err) : unreadable(vault.root, err);
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

/** A kept step with how many of its versions are still kept (`kept` < `cards`: some were pruned). */
export type KeptStep = StepRow & { kept: number };

/**
 * The newest `limit` steps of the whole vault, newest first; `before` pages back from a step number.
 * Each names its first `names` cards (`kind/key`), in the order written.
 */
export function readSteps(
  vault: Vault,
  limit: number,
  opts: { before?: number; names?: number } = {},
): (KeptStep & { names: string[] })[] {
  const before = opts.before ?? Number.MAX_SAFE_INTEGER;
  return reading(vault, [], (q) =>
    q.steps.all({ limit, before }).map((s) => ({
      ...s,
      names: q.namesOfStep.all({ id: s.id, limit: opts.names ?? 0 }).map((n) => `${n.kind}/${n.key}`),
    })),
  );
}

/** One step and its versions (in the order written), or null when there is no such step. */
export function readStep(vault: Vault, id: number): { step: KeptStep; versions: VersionRow[] } | null {
  return reading(vault, null, (q) => {
    const versions = q.ofStep.all({ id });
    const step = q.step.get({ id });
    if (step !== null) return { step, versions };
    // A version written before steps existed is a step of its own.
    const only = versions.length === 1 && versions[0]!.step === null ? versions[0]! : null;
    if (only === null) return null;
    const { at, writer, action } = only;
    return { step: { id, at, writer, action, cards: 1, undoes: null, note: null, kept: 1 }, versions };
  });
}

/** Per card (`kind/key`), the file its newest kept import read, for the cards an import put in place. */
export function importedFrom(vault: Vault): Map<string, string> {
  return reading(
    vault,
    new Map(),
    (q) => new Map(q.imported.all({}).map((r) => [`${r.kind}/${r.key}`, r.note])),
  );
}

/** The cards in history whose key is `key` (any case), for finding a card that is no longer live. */
export function historyNames(vault: Vault, key: string): { kind: string; key: string }[] {
  return reading(vault, [], (q) => q.names.all({ key }));
}
