/**
 * The tables of a Postgres store, in a schema of their own (`lorecards`) so they share a database with
 * anything else. Every vault's rows carry its `space` (the URL's `?space=`), so vaults may share one
 * database too; a conversation's other rows are keyed by its number and go with it (ON DELETE CASCADE),
 * as a recall's adoptions go with the recall. A day's totals are the sum of its rows in `day_shares`
 * (each turn write adds a row, folded into one now and then): writes of different conversations never
 * wait for one hot row. Text that is sorted or compared sorts by its bytes
 * (`COLLATE "C"`), as in SQLite, whatever the database's locale. Times are milliseconds (int8), JSON
 * is kept as text (the bytes a backend stores are the bytes it gives back).
 *
 * The schema is made by the first process that finds it missing, under an advisory lock (several
 * gateways starting together make it once); its version is a row in `lorecards.meta`, and a schema
 * newer than this binary knows is refused rather than written to.
 */

import type { SQL } from "bun";
import { LoreError } from "../errors.ts";

export const PG_SCHEMA_VERSION = 3;

const META = `CREATE SCHEMA IF NOT EXISTS lorecards;
CREATE TABLE IF NOT EXISTS lorecards.meta (
  space text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, value text NOT NULL, PRIMARY KEY (space, key));`;

const TABLES_1 = `
CREATE TABLE lorecards.conversations (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, space text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL,
  turn integer NOT NULL, last_seen bigint NOT NULL, opening text COLLATE "C", timed text, UNIQUE (space, id));
CREATE INDEX conversations_seen ON lorecards.conversations (space, last_seen, id);
CREATE INDEX conversations_opening ON lorecards.conversations (space, opening, last_seen);
CREATE TABLE lorecards.injections (
  conversation bigint NOT NULL REFERENCES lorecards.conversations ON DELETE CASCADE,
  card text COLLATE "C" NOT NULL, turn integer NOT NULL, version text NOT NULL, PRIMARY KEY (conversation, card));
CREATE TABLE lorecards.replays (
  conversation bigint NOT NULL REFERENCES lorecards.conversations ON DELETE CASCADE,
  anchor integer NOT NULL, hash text COLLATE "C" NOT NULL, place text NOT NULL, text text NOT NULL,
  turn integer NOT NULL, cards text NOT NULL, role text, tier text, PRIMARY KEY (conversation, anchor, hash));
CREATE TABLE lorecards.turns (
  conversation bigint NOT NULL REFERENCES lorecards.conversations ON DELETE CASCADE,
  turn integer NOT NULL, at bigint NOT NULL, surface text NOT NULL, record text NOT NULL,
  PRIMARY KEY (conversation, turn));
CREATE INDEX turns_at ON lorecards.turns (at);
CREATE TABLE lorecards.day_shares (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, space text COLLATE "C" NOT NULL, day text COLLATE "C" NOT NULL,
  share text NOT NULL);
CREATE INDEX day_shares_day ON lorecards.day_shares (space, day);
CREATE TABLE lorecards.recalls (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, space text COLLATE "C" NOT NULL,
  session text COLLATE "C" NOT NULL, query text COLLATE "C" NOT NULL, at bigint NOT NULL, surface text NOT NULL,
  cards text NOT NULL, UNIQUE (space, session, query));
CREATE INDEX recalls_at ON lorecards.recalls (space, at, query, session);
CREATE TABLE lorecards.adoptions (
  recall bigint NOT NULL REFERENCES lorecards.recalls ON DELETE CASCADE,
  card text COLLATE "C" NOT NULL, at bigint NOT NULL, PRIMARY KEY (recall, card));
CREATE TABLE lorecards.hits (
  n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, space text COLLATE "C" NOT NULL, entry text NOT NULL);
CREATE INDEX hits_space ON lorecards.hits (space, n);
`;

/** Version 2: the name a person gave a conversation in the editor. */
const NAMES_2 = "ALTER TABLE lorecards.conversations ADD COLUMN IF NOT EXISTS name text;";

/** Version 3: sessions' lore switches (`setLore`). */
const LORE_3 = `
CREATE TABLE IF NOT EXISTS lorecards.lore_switches (
  space text COLLATE "C" NOT NULL, session text COLLATE "C" NOT NULL, lore text NOT NULL, at bigint NOT NULL,
  PRIMARY KEY (space, session));
CREATE INDEX IF NOT EXISTS lore_switches_at ON lorecards.lore_switches (space, at, session);`;

/** Each step takes the schema from version `i` to `i + 1`. */
const STEPS = [TABLES_1, NAMES_2, LORE_3];

/** Makes or brings up to date the schema; cheap when it is current (one read). */
export async function ensureSchema(sql: SQL, where: string): Promise<void> {
  const [found] = await sql`SELECT to_regclass('lorecards.meta') IS NOT NULL AS present`;
  if (found?.present && (await version(sql)) === PG_SCHEMA_VERSION) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('lorecards schema'))`;
    await tx.unsafe(META);
    const from = await version(tx);
    if (from > PG_SCHEMA_VERSION)
      throw new LoreError(
        "io_error",
        `state ${where}: its schema (version ${from}) was made by a newer lorecards; this one knows version ${PG_SCHEMA_VERSION}`,
      );
    for (const step of STEPS.slice(from)) await tx.unsafe(step);
    await tx`INSERT INTO lorecards.meta (space, key, value) VALUES ('', 'schema', ${String(PG_SCHEMA_VERSION)})
      ON CONFLICT (space, key) DO UPDATE SET value = excluded.value`;
  });
}

async function version(sql: SQL): Promise<number> {
  const [row] = await sql`SELECT value FROM lorecards.meta WHERE space = '' AND key = 'schema'`;
  return row ? Number(row.value) : 0;
}
