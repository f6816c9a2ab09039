/**
 * The file card history lives in: `<vault>/.lorecards/history.db`, a bun:sqlite database of its own (not
 * state.db: the vault layer owns it and may not depend on state/). Opened in WAL mode with a busy timeout,
 * like state.db, for one operation at a time and closed after it: writes happen under the vault lock,
 * a few a minute, so a cached connection would buy nothing and could outlive a file replaced under it.
 * The file is made by the first write; a read of a vault that has none sees an empty history.
 *
 * `versions`: `id` is the version number users see (`history`, `revert --version N`, `try --as-of N`):
 * one sequence across the vault, like a revision number, so a number alone also names a moment of the
 * whole vault. AUTOINCREMENT keeps a number from ever being given twice, even after pruning.
 *
 * `steps` (schema 2): what one write did as a whole, the unit one undo takes back. A single card's save
 * is a step of one version; an import, a bulk action in the editor or an undo is one step of many. A
 * step's id is the number of its first version, so `#N` names the same moment either way. A version
 * written by a binary from before steps has no step (NULL): it is a step of its own.
 */
import type { Database, Statement } from "bun:sqlite";
import { existsSync } from "node:fs";
import { describeError, LoreError } from "../errors.ts";
import { openSqlite, type SqliteSchema } from "../sqlite-file.ts";
import { lazyStatements } from "../sqlite-statements.ts";
import { stateIn } from "./_links.ts";

const VERSIONS_V1 = `
CREATE TABLE versions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  at INTEGER NOT NULL,
  writer TEXT NOT NULL,
  action TEXT NOT NULL,
  before TEXT,
  after TEXT,
  reverted_to INTEGER);
CREATE INDEX versions_card ON versions (kind, key, id);
CREATE INDEX versions_at ON versions (at);
`;

/** Schema 2: every version belongs to a step; a file of schema 1 gets one step per version it holds. */
const STEPS_V2 = `
CREATE TABLE steps (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  writer TEXT NOT NULL,
  action TEXT NOT NULL,
  cards INTEGER NOT NULL,
  undoes INTEGER,
  note TEXT);
ALTER TABLE versions ADD COLUMN step INTEGER;
INSERT INTO steps (id, at, writer, action, cards) SELECT id, at, writer, action, 1 FROM versions;
UPDATE versions SET step = id;
CREATE INDEX versions_step ON versions (step);
`;

const SCHEMA: SqliteSchema = {
  version: 2,
  migrate: (db, from) => {
    if (from < 1) db.exec(VERSIONS_V1);
    if (from < 2) db.exec(STEPS_V2);
    db.exec("PRAGMA user_version = 2");
  },
};

export interface VersionRow {
  id: number;
  kind: string;
  key: string;
  at: number;
  writer: string;
  action: string;
  before: string | null;
  after: string | null;
  reverted_to: number | null;
  /** The step the version belongs to (null: written before steps, a step of its own). */
  step: number | null;
}

export type NewVersion = Omit<VersionRow, "id" | "step">;

/** A step as stored: what one write did as a whole (see the module comment). */
export interface StepRow {
  id: number;
  at: number;
  writer: string;
  /** The versions' action when they share one, else what the step was (`bulk`, `undo`). */
  action: string;
  /** Versions the step recorded (some may have been pruned since: see `kept`). */
  cards: number;
  /** For an undo: the step it took back. */
  undoes: number | null;
  /** One line about it: the file an import read, what a bulk action set. */
  note: string | null;
}

/** Named parameters, written without their `$` (the connection is opened with `strict`). */
type Params = Record<string, string | number | null>;
type Query<Row = unknown> = Statement<Row, [Params]>;

/** A card's state at a version: its text then (null: not a live card), and whether it is an estimate. */
export interface StateRow {
  id: number;
  kind: string;
  key: string;
  at: number;
  text: string | null;
  /** 1: every kept version of the card is later; this is the text before the oldest of them. */
  older: number;
}

export interface HistoryQueries {
  insert: Query;
  insertStep: Query;
  stepOfFirst: Query;
  prune: Query;
  ofCard: Query<VersionRow>;
  one: Query<VersionRow>;
  newestAt: Query<{ id: number | null }>;
  newest: Query<{ id: number | null }>;
  statesAt: Query<StateRow>;
  names: Query<{ kind: string; key: string }>;
  steps: Query<StepRow & { kept: number }>;
  step: Query<StepRow & { kept: number }>;
  ofStep: Query<VersionRow>;
  namesOfStep: Query<{ kind: string; key: string }>;
  imported: Query<{ kind: string; key: string; note: string }>;
}

export function historyPath(root: string): string {
  return stateIn(root, "history.db");
}

/** Opens the file (creating it when `create`), migrated; null when it does not exist and may not be made. */
export function openHistory(root: string, create: boolean): Database | null {
  const file = historyPath(root);
  if (!create && !existsSync(file)) return null;
  return openSqlite(file, create, SCHEMA);
}

export function queries(db: Database): HistoryQueries {
  return lazyStatements<HistoryQueries>(db, {
    insert:
      "INSERT INTO versions (kind, key, at, writer, action, before, after, reverted_to, step) " +
      "VALUES ($kind, $key, $at, $writer, $action, $before, $after, $reverted_to, $step)",
    insertStep:
      "INSERT INTO steps (id, at, writer, action, cards, undoes, note) " +
      "VALUES ($id, $at, $writer, $action, $cards, $undoes, $note)",
    // The first version is inserted before its step's id is known: it joins the step afterwards.
    stepOfFirst: "UPDATE versions SET step = $id WHERE id = $id",
    // Keep a card's newest $keep versions: the subquery is the oldest one kept (NULL while fewer).
    prune:
      "DELETE FROM versions WHERE kind = $kind AND key = $key AND id < (SELECT id FROM versions " +
      "WHERE kind = $kind AND key = $key ORDER BY id DESC LIMIT 1 OFFSET $keep - 1)",
    ofCard: "SELECT * FROM versions WHERE kind = $kind AND key = $key ORDER BY id DESC",
    one: "SELECT * FROM versions WHERE id = $id",
    newestAt: "SELECT max(id) AS id FROM versions WHERE at <= $at",
    newest: "SELECT max(id) AS id FROM versions",
    // Per card: the newest version up to $id (its text after), or, for a card whose every kept version
    // is later, the oldest one (its text before).
    statesAt:
      "SELECT v.id, v.kind, v.key, v.at, v.after AS text, 0 AS older FROM versions v JOIN " +
      "(SELECT max(id) AS id FROM versions WHERE id <= $id GROUP BY kind, key) m ON v.id = m.id " +
      "UNION ALL SELECT v.id, v.kind, v.key, v.at, v.before AS text, 1 AS older FROM versions v JOIN " +
      "(SELECT min(id) AS id FROM versions GROUP BY kind, key HAVING min(id) > $id) m ON v.id = m.id",
    names: "SELECT DISTINCT kind, key FROM versions WHERE key = $key COLLATE NOCASE",
    steps:
      "SELECT s.*, (SELECT count(*) FROM versions v WHERE v.step = s.id) AS kept FROM steps s " +
      "WHERE s.id < $before ORDER BY s.id DESC LIMIT $limit",
    step: "SELECT s.*, (SELECT count(*) FROM versions v WHERE v.step = s.id) AS kept FROM steps s WHERE s.id = $id",
    ofStep: "SELECT * FROM versions WHERE step = $id OR (step IS NULL AND id = $id) ORDER BY id",
    namesOfStep:
      "SELECT kind, key FROM versions WHERE step = $id OR (step IS NULL AND id = $id) ORDER BY id LIMIT $limit",
    // Every import's placed cards with the file it read, oldest first (the newest import of a card wins).
    imported:
      "SELECT v.kind, v.key, s.note FROM versions v JOIN steps s ON s.id = v.step " +
      "WHERE s.action = 'import' AND s.note IS NOT NULL AND v.after IS NOT NULL ORDER BY v.id",
  });
}

/** history.db could not be opened, though it is not damaged (a full disk, a file system gone read-only). */
export function unreadable(root: string, err: unknown): LoreError {
  return new LoreError("io_error", `cannot open ${historyPath(root)}: ${describeError(err)}`, { cause: err });
}

export function damaged(root: string, err: unknown): LoreError {
  return new LoreError(
    "io_error",
    `${historyPath(root)} cannot be read (${describeError(err)}); the next card write moves it aside ` +
      "and starts a new history",
    { cause: err },
  );
}
