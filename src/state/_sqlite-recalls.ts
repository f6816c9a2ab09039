/**
 * Index recalls and adoptions in a state file (the `recalls` and `adoptions` tables, _sqlite-file.ts)
 * as the driver's recall operations, run inside the caller's transaction; the cap's order (`byOldest`
 * in _recall-rules.ts) is written here in SQL, where an index serves it. Statements are prepared on
 * first use, once per connection.
 */

import type { Database, Statement } from "bun:sqlite";
import { lazyStatements } from "../sqlite-statements.ts";
import type { Tx } from "./_driver.ts";
import type { RecallRecord, StoredRecall } from "./types.ts";

interface RecallRow {
  n: number;
  session: string;
  query: string;
  at: number;
  surface: string;
  cards: string;
}

interface RecallQueries {
  putRecall: Statement<unknown, [string, string, number, string, string]>;
  dropOlder: Statement<{ n: number }, [number]>;
  /** `byOldest` in _recall-rules.ts, in SQL. */
  dropBeyond: Statement<{ n: number }, [number]>;
  dropAdoptions: Statement<unknown, [number]>;
  recall: Statement<RecallRow, [string, string]>;
  opened: Statement<{ card: string; at: number }, [number]>;
  putAdoption: Statement<unknown, [number, string, number]>;
  since: Statement<RecallRow, [number]>;
  openedSince: Statement<{ recall: number; card: string; at: number }, [number]>;
}

const prepared = new WeakMap<Database, RecallQueries>();

function queries(db: Database): RecallQueries {
  let q = prepared.get(db);
  if (q === undefined) {
    q = lazyStatements<RecallQueries>(db, {
      putRecall:
        "INSERT INTO recalls (session, query, at, surface, cards) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (session, query) DO NOTHING",
      dropOlder: "DELETE FROM recalls WHERE at < ? RETURNING n",
      dropBeyond:
        "DELETE FROM recalls WHERE n IN (SELECT n FROM recalls ORDER BY at, query, session " +
        "LIMIT max(0, (SELECT count(*) FROM recalls) - ?)) RETURNING n",
      dropAdoptions: "DELETE FROM adoptions WHERE recall = ?",
      recall: "SELECT n, session, query, at, surface, cards FROM recalls WHERE session = ? AND query = ?",
      opened: "SELECT card, at FROM adoptions WHERE recall = ? ORDER BY card",
      putAdoption: "INSERT OR IGNORE INTO adoptions (recall, card, at) VALUES (?, ?, ?)",
      since:
        "SELECT n, session, query, at, surface, cards FROM recalls WHERE at >= ? ORDER BY at, query, session",
      openedSince:
        "SELECT a.recall, a.card, a.at FROM adoptions a JOIN recalls r ON r.n = a.recall WHERE r.at >= ?",
    });
    prepared.set(db, q);
  }
  return q;
}

/** The recall operations of the driver's `Tx`, on a state file. */
export function recallTx(
  db: Database,
): Pick<Tx, "putRecall" | "dropRecalls" | "recall" | "putAdoption" | "recallsSince"> {
  const q = queries(db);
  return {
    putRecall: (r) => void q.putRecall.run(r.session, r.query, r.at, r.surface, JSON.stringify(r.cards)),
    dropRecalls(before, keep) {
      for (const { n } of [...q.dropOlder.all(before), ...q.dropBeyond.all(keep)]) q.dropAdoptions.run(n);
    },
    recall(session, query) {
      const row = q.recall.get(session, query);
      return row && { n: row.n, ...storedOf(row, q.opened.all(row.n)) };
    },
    putAdoption: (n, card, at) => void q.putAdoption.run(n, card, at),
    recallsSince(since) {
      const opened = new Map<number, { card: string; at: number }[]>();
      for (const a of q.openedSince.all(since)) {
        const list = opened.get(a.recall) ?? [];
        list.push(a);
        opened.set(a.recall, list);
      }
      return q.since.all(since).map((row) => storedOf(row, opened.get(row.n) ?? []));
    },
  };
}

function storedOf(row: RecallRow, opened: readonly { card: string; at: number }[]): StoredRecall {
  return {
    session: row.session,
    query: row.query,
    at: row.at,
    surface: row.surface as RecallRecord["surface"],
    cards: JSON.parse(row.cards) as string[],
    opened: Object.fromEntries(opened.map((a) => [a.card, a.at])),
  };
}

/**
 * A copy of a state file without its recall events (a backup made without `--with-recalls`): the
 * index recalls and their adoptions deleted, the tables kept empty so the copy opens as any state
 * file does, and the freed pages given back so nothing of them is left in the copy's bytes.
 */
export function dropRecallEvents(db: Database): void {
  const tables = new Set(
    db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((t) => t.name),
  );
  for (const table of ["adoptions", "recalls"]) if (tables.has(table)) db.run(`DELETE FROM ${table}`);
  db.run("VACUUM");
}
