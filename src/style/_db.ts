/**
 * The style store's file, `<vault>/.lorecards/style.db`, apart from state.db so neither schema knows
 * the other: one bun:sqlite connection in WAL mode with a busy timeout (the gateway, hooks and the
 * editor share the file), made on the first write only (reading a vault that never learned creates
 * nothing), every write one immediate transaction. A file that is not a database or turns out
 * corrupt is moved aside with its -wal and -shm and rebuilt empty, with a warning, as state.db is
 * (state/_sqlite-file.ts); a file replaced or deleted under a running process is opened again.
 */

import type { Database, Statement } from "bun:sqlite";
import { existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { firstSchema, isCorrupt, moveAside, openSqlite } from "../sqlite-file.ts";
import { lazyStatements } from "../sqlite-statements.ts";
import { stateIn } from "../vault/index.ts";
import type { HabitRecord } from "./rules.ts";
import type { ContextTag, HabitKind, HabitSource, HabitState } from "./types.ts";

const SCHEMA = firstSchema(
  1,
  `
CREATE TABLE habits (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, signal TEXT NOT NULL, locale TEXT NOT NULL, note TEXT,
  use_when TEXT NOT NULL, avoid_when TEXT NOT NULL, source TEXT NOT NULL, state TEXT NOT NULL,
  pinned INTEGER NOT NULL, count INTEGER NOT NULL, hints INTEGER NOT NULL,
  conversations INTEGER NOT NULL, conversation_hashes TEXT NOT NULL,
  first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, example TEXT) WITHOUT ROWID;
CREATE INDEX habits_seen ON habits (last_seen);
CREATE INDEX habits_source ON habits (source);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE revisions (n INTEGER PRIMARY KEY, hash TEXT NOT NULL, items TEXT NOT NULL, at INTEGER NOT NULL);
PRAGMA user_version = 1;
`,
);

export interface HabitRow {
  id: string;
  kind: string;
  signal: string;
  locale: string;
  note: string | null;
  use_when: string;
  avoid_when: string;
  source: string;
  state: string;
  pinned: number;
  count: number;
  hints: number;
  conversations: number;
  conversation_hashes: string;
  first_seen: number;
  last_seen: number;
  example: string | null;
}

const COLUMNS =
  "id, kind, signal, locale, note, use_when, avoid_when, source, state, pinned, count, hints, " +
  "conversations, conversation_hashes, first_seen, last_seen, example";

export interface RevisionRow {
  n: number;
  hash: string;
  items: string;
}

export interface Queries {
  habit: Statement<HabitRow, [string]>;
  habits: Statement<HabitRow, []>;
  /**
   * Unpinned habits that time may change at a moment: candidates unseen since the first time, active
   * ones since the second, any since the third (rules.ts `fate` decides; this only narrows).
   */
  aging: Statement<HabitRow, [number, number, number]>;
  bySource: Statement<HabitRow, [string]>;
  putHabit: Statement<unknown, (string | number | null)[]>;
  dropHabit: Statement<unknown, [string]>;
  habitCount: Statement<{ n: number }, []>;
  /** The least recently seen unpinned candidates beyond a cap. */
  overCap: Statement<{ id: string }, [number]>;
  meta: Statement<{ value: string }, [string]>;
  putMeta: Statement<unknown, [string, string]>;
  latestRevision: Statement<RevisionRow, []>;
  revision: Statement<RevisionRow, [number]>;
  putRevision: Statement<unknown, [number, string, string, number]>;
  trimRevisions: Statement<unknown, [number]>;
  dropRevisions: Statement<unknown, []>;
}

function prepare(db: Database): Queries {
  return lazyStatements<Queries>(db, {
    habit: `SELECT ${COLUMNS} FROM habits WHERE id = ?`,
    habits: `SELECT ${COLUMNS} FROM habits`,
    aging:
      `SELECT ${COLUMNS} FROM habits WHERE pinned = 0 AND last_seen <= ?1 AND ` +
      "(state = 'candidate' OR (state = 'active' AND last_seen <= ?2) OR last_seen <= ?3)",
    bySource: `SELECT ${COLUMNS} FROM habits WHERE source = ?`,
    putHabit: `INSERT OR REPLACE INTO habits (${COLUMNS}) VALUES (${COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
    dropHabit: "DELETE FROM habits WHERE id = ?",
    habitCount: "SELECT count(*) AS n FROM habits",
    overCap:
      "SELECT id FROM habits WHERE pinned = 0 AND state = 'candidate' ORDER BY last_seen, id " +
      "LIMIT max(0, (SELECT count(*) FROM habits) - ?)",
    meta: "SELECT value FROM meta WHERE key = ?",
    putMeta: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
    latestRevision: "SELECT n, hash, items FROM revisions ORDER BY n DESC LIMIT 1",
    revision: "SELECT n, hash, items FROM revisions WHERE n = ?",
    putRevision: "INSERT OR REPLACE INTO revisions (n, hash, items, at) VALUES (?, ?, ?, ?)",
    trimRevisions: "DELETE FROM revisions WHERE n <= ?",
    dropRevisions: "DELETE FROM revisions",
  });
}

export function toRecord(r: HabitRow): HabitRecord {
  const h: HabitRecord = {
    id: r.id,
    signal: r.signal,
    kind: r.kind as HabitKind,
    locale: r.locale,
    useWhen: JSON.parse(r.use_when) as ContextTag[],
    avoidWhen: JSON.parse(r.avoid_when) as ContextTag[],
    source: r.source as HabitSource,
    state: r.state as HabitState,
    pinned: r.pinned === 1,
    count: r.count,
    hints: r.hints,
    conversations: r.conversations,
    conversationHashes: JSON.parse(r.conversation_hashes) as string[],
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
  };
  if (r.note !== null) h.note = r.note;
  if (r.example !== null) h.example = r.example;
  return h;
}

export function rowValues(h: HabitRecord): (string | number | null)[] {
  return [
    h.id,
    h.kind,
    h.signal,
    h.locale,
    h.note ?? null,
    JSON.stringify(h.useWhen),
    JSON.stringify(h.avoidWhen),
    h.source,
    h.state,
    h.pinned ? 1 : 0,
    h.count,
    h.hints,
    h.conversations,
    JSON.stringify(h.conversationHashes),
    h.firstSeen,
    h.lastSeen,
    h.example ?? null,
  ];
}

interface Open {
  db: Database;
  q: Queries;
  dev: bigint;
  ino: bigint;
}

export function stylePath(vaultRoot: string): string {
  return stateIn(vaultRoot, "style.db");
}

/** What a hook left to be learned (_inbox.ts): folded in before every use of the store. */
export interface Pending {
  waiting(): boolean;
  /** Learns what waits, in the caller's transaction; what it returns is called once that commits. */
  fold(q: Queries): () => void;
}

export class StyleDb {
  private open?: Open;

  constructor(
    readonly file: string,
    private readonly warn: (line: string) => void,
    private readonly pending?: Pending,
  ) {}

  /**
   * `fn` on the store, or `empty` when nothing was ever written (no file is made for a read unless
   * the inbox holds something to learn first).
   */
  read<T>(fn: (q: Queries) => T, empty: T): T {
    if (this.pending?.waiting()) this.write(() => undefined);
    if (!this.current(false)) return empty;
    return this.run(() => fn(this.open!.q));
  }

  /** `fn` in one immediate transaction, after the inbox's lines, making the file when it is missing. */
  write<T>(fn: (q: Queries) => T): T {
    this.current(true);
    let folded: (() => void) | undefined;
    const out = this.run(() =>
      this.open!.db.transaction(() => {
        folded = this.pending?.waiting() ? this.pending.fold(this.open!.q) : undefined;
        return fn(this.open!.q);
      }).immediate(),
    );
    folded?.();
    return out;
  }

  close(): void {
    this.open?.db.close();
    this.open = undefined;
  }

  /** True when a connection to the file at the path is open (after opening it when asked to make it). */
  private current(create: boolean): boolean {
    const id = statSync(this.file, { bigint: true, throwIfNoEntry: false });
    if (this.open && id && id.dev === this.open.dev && id.ino === this.open.ino) return true;
    this.close();
    if (!id && !create) return false;
    this.connect();
    return true;
  }

  /** Runs `fn`; a store found corrupt on the way is moved aside, rebuilt, and `fn` run once more. */
  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!isCorrupt(err)) throw wrap(err, this.file);
      this.rebuild(err);
      return fn();
    }
  }

  private connect(): void {
    try {
      this.open = openFile(this.file);
    } catch (err) {
      if (!isCorrupt(err)) throw wrap(err, this.file);
      this.rebuild(err);
    }
  }

  private rebuild(cause: unknown): void {
    this.close();
    const aside = moveAside(this.file, Date.now());
    this.warn(
      `lorecards: style store ${this.file} could not be read (${describeError(cause)}); moved to ${aside}, rebuilt empty`,
    );
    this.open = openFile(this.file);
  }
}

function openFile(file: string): Open {
  const dir = path.dirname(file);
  if (!existsSync(dir)) {
    if (!existsSync(path.dirname(dir)))
      throw new LoreError("io_error", `the vault ${path.dirname(dir)} does not exist`);
    mkdirSync(dir, { recursive: true });
  }
  const db = openSqlite(file, true, SCHEMA);
  try {
    const id = statSync(file, { bigint: true });
    return { db, q: prepare(db), dev: id.dev, ino: id.ino };
  } catch (err) {
    db.close();
    throw err;
  }
}

function wrap(err: unknown, file: string): LoreError {
  if (err instanceof LoreError) return err;
  return new LoreError("io_error", `style store ${file}: ${describeError(err)}`, { cause: err });
}
