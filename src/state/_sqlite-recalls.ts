/**
 * Index recalls and adoptions in a state file (the `recalls` and `adoptions` tables, _sqlite-file.ts):
 * each write applies the recall rules (_recall-rules.ts) inside the caller's transaction; the cap's
 * order (`byOldest`) is written here in SQL, where an index serves it. Statements are prepared on
 * first use, once per connection.
 */

import type { Database, Statement } from "bun:sqlite";
import { lazyStatements } from "../sqlite-statements.ts";
import { adoptionOutcome, keptSince, normalIds, normalRecall, tallyUsage } from "./_recall-rules.ts";
import type {
  AdoptionOutcome,
  AdoptionRecord,
  Limits,
  RecallRecord,
  StoredRecall,
  UsageWindow,
} from "./types.ts";

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

export function recordRecall(db: Database, record: RecallRecord, limits: Limits): void {
  const q = queries(db);
  const r = normalRecall(record, limits);
  q.putRecall.run(r.session, r.query, r.at, r.surface, JSON.stringify(r.cards));
  const dropped = [
    ...q.dropOlder.all(keptSince(r.at, limits)),
    ...q.dropBeyond.all(Math.max(0, limits.recalls)),
  ];
  for (const { n } of dropped) q.dropAdoptions.run(n);
}

export function recordAdoption(db: Database, adoption: AdoptionRecord): AdoptionOutcome {
  const q = queries(db);
  const ids = normalIds(adoption.session, adoption.query);
  const row = q.recall.get(ids.session, ids.query);
  const outcome = adoptionOutcome(row && storedOf(row, q.opened.all(row.n)), adoption.card);
  if (outcome === "recorded") q.putAdoption.run(row!.n, adoption.card, adoption.at);
  return outcome;
}

export function findRecall(db: Database, session: string, query: string): StoredRecall | null {
  const q = queries(db);
  const ids = normalIds(session, query);
  const row = q.recall.get(ids.session, ids.query);
  return row && storedOf(row, q.opened.all(row.n));
}

export function cardUsage(db: Database, since: number): UsageWindow {
  const q = queries(db);
  const opened = new Map<number, { card: string; at: number }[]>();
  for (const a of q.openedSince.all(since)) {
    const list = opened.get(a.recall) ?? [];
    list.push(a);
    opened.set(a.recall, list);
  }
  return tallyUsage(q.since.all(since).map((row) => storedOf(row, opened.get(row.n) ?? [])));
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
