/**
 * The prepared statements of a state file (_sqlite-file.ts), each made on first use, and the shapes
 * of the rows they read. The orders a query spans a table with are written here in SQL, where an
 * index serves them, each naming the rule it keeps.
 */

import type { Database, Statement } from "bun:sqlite";
import { lazyStatements } from "../sqlite-statements.ts";

export interface ReplayRow {
  anchor: number;
  hash: string;
  place: string;
  text: string;
  turn: number;
  cards: string;
  role: string | null;
  tier: string | null;
}

interface RowOfConversation {
  n: number;
  turn: number;
  last_seen: number;
  opening: string | null;
  timed: string | null;
}

/** A conversation's row or nulls, and the switch of each of two sessions (`lore`, `bare`). */
type LoadedRow = { [K in keyof RowOfConversation]: RowOfConversation[K] | null } & {
  lore: string | null;
  bare: string | null;
};

/**
 * Statements by conversation take its number `n` (TABLES_4 in _sqlite-file.ts), except those that find it by id;
 * the `drop…Of` ones take the numbers of several as a JSON array.
 */
export interface Queries
  extends Record<"begin" | "commit" | "rollback", Statement<unknown, []>>,
    Record<"dropInjectionsOf" | "dropReplaysOf" | "dropTurnsOf", Statement<unknown, [string]>> {
  conversation: Statement<RowOfConversation, [string]>;
  /** By id, with the switches of two sessions: the row's columns are null when there is no row. */
  loaded: Statement<LoadedRow, [string, string | null, string | null]>;
  injections: Statement<{ card: string; turn: number; version: string }, [number]>;
  replays: Statement<ReplayRow, [number]>;
  injectionKeys: Statement<{ id: string; turn: number }, [number]>;
  replayKeys: Statement<{ anchor: number; hash: string; turn: number }, [number]>;
  byOpening: Statement<{ id: string }, [string]>;
  /** Inserts or updates by id; returns the conversation's number. */
  putConversation: Statement<{ n: number }, [string, number, number, string | null, string | null]>;
  putInjection: Statement<unknown, [number, string, number, string]>;
  dropInjection: Statement<unknown, [number, string]>;
  putReplay: Statement<
    unknown,
    [number, number, string, string, string, number, string, string | null, string | null]
  >;
  dropReplay: Statement<unknown, [number, number, string]>;
  conversationCount: Statement<{ n: number }, []>;
  evict: Statement<{ n: number }, [number]>;
  turn: Statement<{ record: string }, [number, number]>;
  turnNumbers: Statement<{ turn: number }, [number]>;
  putTurn: Statement<unknown, [number, number, number, string, string]>;
  dropTurn: Statement<unknown, [number, number]>;
  /** By conversation id: its newest `limit` records, oldest first. */
  turns: Statement<{ record: string }, [string, number]>;
  turnsSince: Statement<{ id: string; record: string }, [number]>;
  withTurns: Statement<
    { id: string; surface: string; turns: number; last_seen: number; name: string | null },
    [number]
  >;
  nameConversation: Statement<unknown, [string | null, string]>;
  day: Statement<{ totals: string }, [string]>;
  putDay: Statement<unknown, [string, string]>;
  days: Statement<{ day: string; totals: string }, [string]>;
  /** The switch of one session, or none. */
  lore: Statement<{ lore: string }, [string]>;
  putLore: Statement<unknown, [string, string, number]>;
  dropLore: Statement<unknown, [string]>;
  dropLoreBeyond: Statement<unknown, [number]>;
}

export function prepare(db: Database): Queries {
  return lazyStatements<Queries>(db, {
    // Immediate: the read-modify-write of one process never interleaves with another's (sqlite.ts).
    begin: "BEGIN IMMEDIATE",
    commit: "COMMIT",
    rollback: "ROLLBACK",
    conversation: "SELECT n, turn, last_seen, opening, timed FROM conversations WHERE id = ?",
    // One statement, one read transaction: a load outside a transaction is a read of its own per
    // statement, and most of a statement's cost there is beginning and ending that read.
    loaded:
      "SELECT c.n, c.turn, c.last_seen, c.opening, c.timed, " +
      "(SELECT lore FROM lore_switches WHERE session = ?2) AS lore, " +
      "(SELECT lore FROM lore_switches WHERE session = ?3) AS bare " +
      "FROM (SELECT 1) LEFT JOIN conversations c ON c.id = ?1",
    injections: "SELECT card, turn, version FROM injections WHERE conversation = ? ORDER BY turn, card",
    replays:
      "SELECT anchor, hash, place, text, turn, cards, role, tier FROM replays WHERE conversation = ? " +
      "ORDER BY anchor, turn, hash",
    injectionKeys: "SELECT card AS id, turn FROM injections WHERE conversation = ?",
    replayKeys: "SELECT anchor, hash, turn FROM replays WHERE conversation = ?",
    // `byMostRecentlySeen` in _rules.ts, in SQL (an index serves it).
    byOpening: "SELECT id FROM conversations WHERE opening = ? ORDER BY last_seen DESC, id LIMIT 1",
    putConversation:
      "INSERT INTO conversations (id, turn, last_seen, opening, timed) VALUES (?1, ?2, ?3, ?4, ?5) " +
      "ON CONFLICT (id) DO UPDATE SET turn = ?2, last_seen = ?3, opening = ?4, timed = ?5 RETURNING n",
    putInjection:
      "INSERT INTO injections (conversation, card, turn, version) VALUES (?1, ?2, ?3, ?4) " +
      "ON CONFLICT (conversation, card) DO UPDATE SET turn = ?3, version = ?4",
    dropInjection: "DELETE FROM injections WHERE conversation = ? AND card = ?",
    putReplay:
      "INSERT OR REPLACE INTO replays (conversation, anchor, hash, place, text, turn, cards, role, tier) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    dropReplay: "DELETE FROM replays WHERE conversation = ? AND anchor = ? AND hash = ?",
    // The conversation cap's order (`byLeastRecentlySeen` in _rules.ts), in SQL: it spans the table.
    conversationCount: "SELECT count(*) AS n FROM conversations",
    evict:
      "DELETE FROM conversations WHERE n IN (SELECT n FROM conversations ORDER BY last_seen ASC, id " +
      "LIMIT max(0, (SELECT count(*) FROM conversations) - ?)) RETURNING n",
    dropInjectionsOf: "DELETE FROM injections WHERE conversation IN (SELECT value FROM json_each(?))",
    dropReplaysOf: "DELETE FROM replays WHERE conversation IN (SELECT value FROM json_each(?))",
    dropTurnsOf: "DELETE FROM turns WHERE conversation IN (SELECT value FROM json_each(?))",
    turn: "SELECT record FROM turns WHERE conversation = ? AND turn = ?",
    turnNumbers: "SELECT turn FROM turns WHERE conversation = ?",
    putTurn: "INSERT OR REPLACE INTO turns (conversation, turn, at, surface, record) VALUES (?, ?, ?, ?, ?)",
    dropTurn: "DELETE FROM turns WHERE conversation = ? AND turn = ?",
    turns:
      "SELECT record FROM (SELECT record, turn, at FROM turns WHERE conversation = " +
      "(SELECT n FROM conversations WHERE id = ?1) ORDER BY turn DESC, at DESC LIMIT ?2) ORDER BY turn, at",
    // `byTime` in _turn-rules.ts, in SQL.
    turnsSince:
      "SELECT c.id, t.record FROM turns t JOIN conversations c ON c.n = t.conversation " +
      "WHERE t.at >= ? ORDER BY t.at, c.id, t.turn",
    // `byMostRecentlySeen` in _rules.ts; the surface of the newest record.
    withTurns:
      "SELECT c.id, c.last_seen, c.name, count(*) AS turns, (SELECT surface FROM turns s WHERE s.conversation = c.n " +
      "ORDER BY s.turn DESC LIMIT 1) AS surface FROM conversations c JOIN turns t ON t.conversation = c.n " +
      "GROUP BY c.n ORDER BY c.last_seen DESC, c.id LIMIT ?",
    nameConversation: "UPDATE conversations SET name = ? WHERE id = ?",
    day: "SELECT totals FROM days WHERE day = ?",
    putDay: "INSERT OR REPLACE INTO days (day, totals) VALUES (?, ?)",
    days: "SELECT day, totals FROM days WHERE day >= ? ORDER BY day",
    lore: "SELECT lore FROM lore_switches WHERE session = ?",
    putLore: "INSERT OR REPLACE INTO lore_switches (session, lore, at) VALUES (?, ?, ?)",
    dropLore: "DELETE FROM lore_switches WHERE session = ?",
    // `byLongestSet` in _lore-rules.ts, in SQL (an index serves it).
    dropLoreBeyond:
      "DELETE FROM lore_switches WHERE session IN (SELECT session FROM lore_switches ORDER BY at, session " +
      "LIMIT max(0, (SELECT count(*) FROM lore_switches) - ?))",
  });
}
