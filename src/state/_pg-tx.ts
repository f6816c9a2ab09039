/**
 * The rows of a Postgres store (_pg-schema.ts) as the driver's `Tx` (_driver.ts), each operation one
 * statement, so one round trip, through Bun's client (which sends the statements of a transaction one
 * at a time: fewer statements is what makes a write cheaper): inside a transaction while the driver
 * holds one, on the pool for reads. A read gathers what it needs with subqueries (`json_agg`); a
 * write is one statement of data-modifying CTEs keyed by the conversation's row, with its lists as
 * arrays (`unnest`, `ANY`), so a commit costs the same two round trips however many cards it touches. Every row carries
 * the store's `space`, so vaults may share one database. The orders a query spans the table with are
 * written in SQL here, where an index serves them, each naming the rule it keeps; text sorts by its
 * bytes (`COLLATE "C"` in the schema), as SQLite's and JavaScript's comparisons do.
 * `int8` columns (times in ms, row numbers) come back as text and are read with `Number`.
 */

import type { SQL } from "bun";
import type { NumberedRecall, Tx } from "./_driver.ts";
import type { ConversationRow } from "./_rules.ts";
import { addShare, emptyShare, type Share } from "./stats.ts";
import type {
  CardRef,
  Placement,
  RecallRecord,
  ReplayRecord,
  StoredRecall,
  Tier,
  TurnRecord,
} from "./types.ts";

type Row = Record<string, unknown>;

/** A day's rows are folded into one when the row number of a write is a multiple of this. */
const FOLD_EVERY = 256;

async function foldDay(sql: SQL, space: string, day: string): Promise<void> {
  const rows =
    await sql`DELETE FROM lorecards.day_shares WHERE space = ${space} AND day = ${day} RETURNING share`;
  const sum = (rows as Row[]).reduce(
    (acc, r) => addShare(acc, JSON.parse(str(r.share)) as Share),
    emptyShare(),
  );
  await sql`INSERT INTO lorecards.day_shares (space, day, share) VALUES (${space}, ${day}, ${JSON.stringify(sum)})`;
}
const num = (v: unknown): number => Number(v);
const str = (v: unknown): string => v as string;
const orNull = (v: unknown): string | null => (v === null ? null : (v as string));

export function pgTx(sql: SQL, space: string): Tx {
  const text = (values: readonly string[]) => sql.array([...values], "TEXT");
  const ints = (values: readonly number[]) => sql.array([...values], "INT4");
  /** The conversation's row stored (inserted, or updated by id), as a CTE `c` the statement's other parts key by. */
  const upsert = (id: string, row: ConversationRow) => sql`INSERT INTO lorecards.conversations
      (space, id, turn, last_seen, opening, timed)
    VALUES (${space}, ${id}, ${row.turn}, ${row.lastSeen}::int8, ${row.opening}, ${row.timed})
    ON CONFLICT (space, id) DO UPDATE SET turn = excluded.turn, last_seen = excluded.last_seen,
      opening = excluded.opening, timed = excluded.timed
    RETURNING n`;
  return {
    async load(id, sessions) {
      // One round trip: the conversation (its columns null when none is stored) and the switch of the
      // first of its sessions that has one.
      const [r] = await sql`SELECT c.n, c.turn, c.last_seen, c.opening, c.timed,
          (SELECT coalesce(json_agg(json_build_array(i.card, i.turn, i.version) ORDER BY i.turn, i.card), '[]')
            FROM lorecards.injections i WHERE i.conversation = c.n) AS injections,
          (SELECT coalesce(json_agg(json_build_array(r.anchor, r.hash, r.place, r.text, r.turn, r.cards, r.role, r.tier)
            ORDER BY r.anchor, r.turn, r.hash), '[]') FROM lorecards.replays r WHERE r.conversation = c.n) AS replays,
          (SELECT s.lore FROM lorecards.lore_switches s WHERE s.space = ${space}
            AND s.session = ANY(${text(sessions)}::text[])
            ORDER BY array_position(${text(sessions)}::text[], s.session::text) LIMIT 1) AS lore
        FROM (SELECT 1) AS one
        LEFT JOIN lorecards.conversations c ON c.space = ${space} AND c.id = ${id}`;
      const lore = orNull(r?.lore ?? null);
      if (!r || r.n === null) return { stored: null, lore };
      const stored = {
        row: rowOf(r),
        injections: json<[string, number, string][]>(r.injections).map(([id, turn, version]) => ({
          id,
          turn,
          version,
        })),
        replays: json<ReplayTuple[]>(r.replays).map(toRecord),
      };
      return { stored, lore };
    },
    async commitKeys(id) {
      const [r] = await sql`SELECT c.turn, c.last_seen, c.opening, c.timed,
          (SELECT coalesce(json_agg(json_build_array(i.card, i.turn)), '[]')
            FROM lorecards.injections i WHERE i.conversation = c.n) AS injections,
          (SELECT coalesce(json_agg(json_build_array(r.anchor, r.hash, r.turn)), '[]')
            FROM lorecards.replays r WHERE r.conversation = c.n) AS replays
        FROM lorecards.conversations c WHERE c.space = ${space} AND c.id = ${id}`;
      if (!r) return { row: null, injections: [], replays: [] };
      return {
        row: rowOf(r),
        injections: json<[string, number][]>(r.injections).map(([id, turn]) => ({ id, turn })),
        replays: json<[number, string, number][]>(r.replays).map(([anchor, hash, turn]) => ({
          anchor,
          hash,
          turn,
        })),
      };
    },
    async putCommit(id, row, change) {
      const cards = change.putInjections;
      const r = change.putReplay;
      // One statement: a key dropped by a new clock that comes back is put, not dropped (a statement
      // must not touch one row twice).
      const drop = change.dropReplays.filter((k) => !r || k.anchor !== r.anchor || k.hash !== r.hash);
      await sql`WITH c AS (${upsert(id, row)}),
        di AS (DELETE FROM lorecards.injections WHERE conversation = (SELECT n FROM c)
          AND card = ANY(${text(change.dropInjections)}::text[])),
        pi AS (INSERT INTO lorecards.injections (conversation, card, turn, version)
          SELECT (SELECT n FROM c), u.card, u.turn, u.version
          FROM unnest(${text(cards.map((i) => i.id))}::text[], ${ints(cards.map((i) => i.turn))}::int4[],
            ${text(cards.map((i) => i.version))}::text[]) AS u (card, turn, version)
          ON CONFLICT (conversation, card) DO UPDATE SET turn = excluded.turn, version = excluded.version),
        dr AS (DELETE FROM lorecards.replays WHERE conversation = (SELECT n FROM c) AND (anchor, hash) IN
          (SELECT * FROM unnest(${ints(drop.map((k) => k.anchor))}::int4[], ${text(drop.map((k) => k.hash))}::text[]))),
        pr AS (INSERT INTO lorecards.replays (conversation, anchor, hash, place, text, turn, cards, role, tier)
          SELECT (SELECT n FROM c), ${r?.anchor ?? 0}::int4, ${r?.hash ?? ""}, ${r?.place ?? ""}, ${r?.text ?? ""},
            ${r?.turn ?? 0}::int4, ${JSON.stringify(r?.cards ?? [])}, ${r?.role ?? null}, ${r?.tier ?? null}
          WHERE ${r !== null}::boolean
          ON CONFLICT (conversation, anchor, hash) DO UPDATE SET place = excluded.place, text = excluded.text,
            turn = excluded.turn, cards = excluded.cards, role = excluded.role, tier = excluded.tier)
        SELECT n FROM c`;
    },
    async conversation(id) {
      const [r] = await sql`SELECT turn, last_seen, opening, timed FROM lorecards.conversations
        WHERE space = ${space} AND id = ${id}`;
      return r ? rowOf(r) : null;
    },
    async putConversation(id, row) {
      await upsert(id, row);
    },
    async byOpening(opening) {
      // `byMostRecentlySeen` in _rules.ts.
      const [r] =
        await sql`SELECT id FROM lorecards.conversations WHERE space = ${space} AND opening = ${opening}
        ORDER BY last_seen DESC, id LIMIT 1`;
      return r ? str(r.id) : null;
    },
    async evict(max, slack) {
      const [{ n }] =
        await sql`SELECT count(*)::int AS n FROM lorecards.conversations WHERE space = ${space}`;
      if (n <= max + slack) return;
      // `byLeastRecentlySeen` in _rules.ts; a conversation's other rows go with it (ON DELETE CASCADE).
      await sql`DELETE FROM lorecards.conversations WHERE n IN (
        SELECT n FROM lorecards.conversations WHERE space = ${space} ORDER BY last_seen, id
        LIMIT greatest(0, (SELECT count(*) FROM lorecards.conversations WHERE space = ${space}) - ${max}))`;
    },

    async turnKeys(id, turn) {
      const [r] = await sql`SELECT c.turn, c.last_seen, c.opening, c.timed,
          (SELECT t.record FROM lorecards.turns t WHERE t.conversation = c.n AND t.turn = ${turn}) AS old,
          (SELECT coalesce(json_agg(t.turn), '[]') FROM lorecards.turns t WHERE t.conversation = c.n) AS turns
        FROM lorecards.conversations c WHERE c.space = ${space} AND c.id = ${id}`;
      if (!r) return { row: null, old: null, turns: [] };
      return {
        row: rowOf(r),
        old: r.old === null ? null : turnRecord(id, r.old),
        turns: json<number[]>(r.turns),
      };
    },
    async putTurn(id, row, put, drop, days) {
      const stored = put && (({ conversation: _id, ...rest }) => rest)(put);
      // A day's totals are the sum of its rows: a write adds rows and never waits for another's.
      const shares = days.map((d) => JSON.stringify(addShare(emptyShare(), d.share, d.sign)));
      const [r] = await sql`WITH c AS (${upsert(id, row)}),
        dt AS (DELETE FROM lorecards.turns WHERE conversation = (SELECT n FROM c) AND turn = ANY(${ints(drop)}::int4[])),
        pt AS (INSERT INTO lorecards.turns (conversation, turn, at, surface, record)
          SELECT (SELECT n FROM c), ${put?.turn ?? 0}::int4, ${put?.at ?? 0}::int8, ${put?.surface ?? ""},
            ${JSON.stringify(stored)}
          WHERE ${put !== null}::boolean
          ON CONFLICT (conversation, turn) DO UPDATE SET at = excluded.at, surface = excluded.surface,
            record = excluded.record),
        pd AS (INSERT INTO lorecards.day_shares (space, day, share)
          SELECT ${space}, u.day, u.share FROM unnest(${text(days.map((d) => d.day))}::text[], ${text(shares)}::text[])
            AS u (day, share)
          RETURNING n)
        SELECT coalesce(max(n), 0) AS n FROM pd`;
      // Now and then, a day's rows are folded into one (rows added meanwhile are not deleted, so not lost).
      if (num(r!.n) % FOLD_EVERY === 0 && days.length > 0) await foldDay(sql, space, days[0]!.day);
    },
    async turns(id, limit) {
      const rows = await sql`SELECT record FROM (SELECT t.record, t.turn, t.at FROM lorecards.turns t
          JOIN lorecards.conversations c ON c.n = t.conversation WHERE c.space = ${space} AND c.id = ${id}
          ORDER BY t.turn DESC, t.at DESC LIMIT ${limit}) newest ORDER BY turn, at`;
      return rows.map((r: Row) => turnRecord(id, r.record));
    },
    async turnsSince(since) {
      // `byTime` in _turn-rules.ts.
      const rows = await sql`SELECT c.id, t.record FROM lorecards.turns t JOIN lorecards.conversations c
        ON c.n = t.conversation WHERE c.space = ${space} AND t.at >= ${since} ORDER BY t.at, c.id, t.turn`;
      return rows.map((r: Row) => turnRecord(str(r.id), r.record));
    },
    async withTurns(limit) {
      // `byMostRecentlySeen` in _rules.ts; the surface of the newest record.
      const rows = await sql`SELECT c.id, c.last_seen, c.name, count(*) AS turns,
          (SELECT surface FROM lorecards.turns s WHERE s.conversation = c.n ORDER BY s.turn DESC LIMIT 1) AS surface
        FROM lorecards.conversations c JOIN lorecards.turns t ON t.conversation = c.n WHERE c.space = ${space}
        GROUP BY c.n ORDER BY c.last_seen DESC, c.id LIMIT ${limit}`;
      return rows.map((r: Row) => ({
        id: str(r.id),
        surface: r.surface as TurnRecord["surface"],
        turns: num(r.turns),
        lastSeen: num(r.last_seen),
        name: r.name === null || r.name === undefined ? null : str(r.name),
      }));
    },
    async nameConversation(id, name) {
      const rows = await sql`UPDATE lorecards.conversations SET name = ${name}
        WHERE space = ${space} AND id = ${id} RETURNING n`;
      return rows.length > 0;
    },
    async days(sinceDay) {
      const rows =
        await sql`SELECT day, share FROM lorecards.day_shares WHERE space = ${space} AND day >= ${sinceDay}`;
      const sums = new Map<string, Share>();
      for (const r of rows as Row[]) {
        const day = str(r.day);
        sums.set(day, addShare(sums.get(day) ?? emptyShare(), JSON.parse(str(r.share)) as Share));
      }
      return [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, share]) => ({ day, share }));
    },

    async putRecall(r) {
      await sql`INSERT INTO lorecards.recalls (space, session, query, at, surface, cards)
        VALUES (${space}, ${r.session}, ${r.query}, ${r.at}, ${r.surface}, ${JSON.stringify(r.cards)})
        ON CONFLICT (space, session, query) DO NOTHING`;
    },
    async dropRecalls(before, keep) {
      // `byOldest` in _recall-rules.ts; adoptions go with their recall (ON DELETE CASCADE).
      await sql`DELETE FROM lorecards.recalls WHERE space = ${space} AND at < ${before}`;
      await sql`DELETE FROM lorecards.recalls WHERE n IN (
        SELECT n FROM lorecards.recalls WHERE space = ${space} ORDER BY at, query, session
        LIMIT greatest(0, (SELECT count(*) FROM lorecards.recalls WHERE space = ${space}) - ${keep}))`;
    },
    async recall(session, query) {
      const [r] = await sql`SELECT r.n, r.session, r.query, r.at, r.surface, r.cards,
          (SELECT coalesce(json_agg(json_build_array(a.card, a.at) ORDER BY a.card), '[]') FROM lorecards.adoptions a
            WHERE a.recall = r.n) AS opened
        FROM lorecards.recalls r WHERE r.space = ${space} AND r.session = ${session} AND r.query = ${query}`;
      return r ? ({ n: num(r.n), ...storedRecall(r) } satisfies NumberedRecall) : null;
    },
    async putAdoption(n, card, at) {
      await sql`INSERT INTO lorecards.adoptions (recall, card, at) VALUES (${n}, ${card}, ${at})
        ON CONFLICT (recall, card) DO NOTHING`;
    },
    async recallsSince(since) {
      const rows = await sql`SELECT r.session, r.query, r.at, r.surface, r.cards,
          (SELECT coalesce(json_agg(json_build_array(a.card, a.at) ORDER BY a.card), '[]') FROM lorecards.adoptions a
            WHERE a.recall = r.n) AS opened
        FROM lorecards.recalls r WHERE r.space = ${space} AND r.at >= ${since} ORDER BY r.at, r.query, r.session`;
      return rows.map(storedRecall);
    },
    async putLore(session, lore, at, keep) {
      // Rare (an agent's call): two statements, so the cap counts the switch just put.
      if (lore === null)
        await sql`DELETE FROM lorecards.lore_switches WHERE space = ${space} AND session = ${session}`;
      else
        await sql`INSERT INTO lorecards.lore_switches (space, session, lore, at)
          VALUES (${space}, ${session}, ${lore}, ${at}::int8)
          ON CONFLICT (space, session) DO UPDATE SET lore = excluded.lore, at = excluded.at`;
      // `byLongestSet` in _lore-rules.ts, in SQL (an index serves it).
      await sql`DELETE FROM lorecards.lore_switches WHERE space = ${space} AND session IN
        (SELECT session FROM lorecards.lore_switches WHERE space = ${space} ORDER BY at, session
          LIMIT greatest(0, (SELECT count(*) FROM lorecards.lore_switches WHERE space = ${space}) - ${keep}))`;
    },
  };
}

/** A replay record as `load` aggregates it: anchor, hash, place, text, turn, cards (JSON), role, tier. */
type ReplayTuple = [number, string, string, string, number, string, string | null, string | null];

function toRecord([anchor, hash, place, text, turn, cards, role, tier]: ReplayTuple): ReplayRecord {
  const record: ReplayRecord = {
    anchor,
    hash,
    place: place as Placement,
    text,
    turn,
    cards: JSON.parse(cards) as CardRef[],
  };
  if (role !== null) record.role = role as NonNullable<ReplayRecord["role"]>;
  if (tier !== null) record.tier = tier as Tier;
  return record;
}

function rowOf(r: Row): ConversationRow {
  return {
    turn: r.turn as number,
    lastSeen: num(r.last_seen),
    opening: orNull(r.opening),
    timed: orNull(r.timed),
  };
}

/** A json column: Bun's client parses it; text is parsed here, whichever a client version gives. */
function json<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

function turnRecord(conversation: string, text: unknown): TurnRecord {
  return { conversation, ...(JSON.parse(str(text)) as Omit<TurnRecord, "conversation">) };
}

function storedRecall(r: Row): StoredRecall {
  const opened = json<[string, number][]>(r.opened);
  return {
    session: str(r.session),
    query: str(r.query),
    at: num(r.at),
    surface: r.surface as RecallRecord["surface"],
    cards: JSON.parse(str(r.cards)) as string[],
    opened: Object.fromEntries(opened.map(([card, at]) => [card, Number(at)])),
  };
}
