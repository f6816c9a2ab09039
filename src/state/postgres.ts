/**
 * The shared Store (`postgres://…`): state in a Postgres database through Bun's built-in client, so
 * several gateway processes (on one machine or several, behind a load balancer) serve the same
 * conversations. A driver (`_driver.ts`) under the one domain layer (`_domain.ts`), like the embedded
 * SQLite store: the same rules, the same contract suite. Writes are `concurrent`: each is its own
 * transaction, several at once over the pool, and each first takes an advisory lock on its
 * conversation (the recalls have one too), so the read-modify-writes of one conversation, from
 * whichever process, run one at a time, as SQLite's immediate transactions do, while those of other
 * conversations go on beside them. Nothing else is shared but sums (a day's totals) and the
 * conversation cap, which deletes the least recently seen rows whoever runs it.
 *
 * The marker secret is a row of `lorecards.meta` (made by whichever process asks first, the same for
 * all), and the hit log a table keeping the newest entries of each space. Loaded only when a URL names
 * this backend, so the default SQLite path (the hook's cold start) never pays for it.
 */

import type { SQL } from "bun";
import { randomHex } from "../vault/index.ts";
import { storeOver } from "./_domain.ts";
import type { Driver, Tx } from "./_driver.ts";
import { type Call, PgClient, type PgSettings, parsePgUrl, redact } from "./_pg-client.ts";
import { pgTx } from "./_pg-tx.ts";
import type { HitEntry } from "./hits.ts";
import { LIMITS, type Limits, type Store } from "./types.ts";

/** The hit log keeps about this many newest entries per space (pruned every few hundred appends). */
const HITS_KEPT = 10_000;
const PRUNE_EVERY = 500;

/** A server store keeps more conversations than a file: it serves several processes, often several people. */
const SERVER_CONVERSATIONS = 10_000;

export interface PostgresStoreOptions {
  /** Caps given by the caller (tests); otherwise LIMITS, with the URL's or the server default conversation cap. */
  limits?: Partial<Limits>;
}

export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Store {
  const settings = parsePgUrl(url);
  const shared = sharedClient(settings);
  const client = shared.client;
  const conversations = settings.conversations ?? SERVER_CONVERSATIONS;
  return storeOver(pgDriver(client, settings.space, shared.release), {
    limits: { ...LIMITS, conversations, ...options.limits },
    name: settings.where,
    lost: (err) => client.isLost(err),
  });
}

/**
 * One client (one pool of connections) per database and deadline, shared by the stores of every space
 * in it and closed with the last of them: a server of 1,000 tenants on one database (each tenant a
 * space, docs/DEPLOYMENT.md) holds one pool, not 1,000, which the server's `max_connections` would
 * refuse.
 */
const clients = new Map<string, { client: PgClient; users: number }>();

function sharedClient(settings: PgSettings): { client: PgClient; release(): Promise<void> } {
  const key = `${settings.url}\n${settings.timeoutMs}`;
  let entry = clients.get(key);
  if (!entry) {
    // Its messages name the database alone: the pool serves every space, and a message naming the
    // first space to open it would say another tenant's space.
    entry = { client: new PgClient({ ...settings, where: redact(settings.url) }), users: 0 };
    clients.set(key, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    client: held.client,
    async release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (clients.get(key) === held) clients.delete(key);
      await held.client.close();
    },
  };
}

function pgDriver(client: PgClient, space: string, release: () => Promise<void>): Driver {
  const always = () => true;
  let secret: string | undefined;

  return {
    writes: "concurrent",
    transaction<T>(keys: readonly string[], body: (tx: Tx) => Promise<T>) {
      // A transaction lost before its COMMIT was sent committed nothing: it may run again.
      let sent = false;
      // BEGIN and the locks in one round trip: one advisory lock per key, taken in one order by every
      // process (no deadlock between them), its id a hash of the space and the key made here.
      const locks = [...new Set(keys)].map((key) => BigInt.asIntN(64, Bun.hash.wyhash(`${space}:${key}`)));
      const begin = ["BEGIN", ...locks.sort().map((id) => `SELECT pg_advisory_xact_lock(${id})`)].join("; ");
      const run = async (sql: SQL, call: Call) => {
        const conn = await sql.reserve();
        try {
          await conn.unsafe(begin);
          try {
            const result = await body(pgTx(conn, space));
            // Given up on by the caller (the deadline passed): what it did must not take effect now.
            if (call.abandoned) throw new Error("the transaction outlived its deadline");
            sent = true;
            await conn.unsafe("COMMIT");
            return result;
          } catch (err) {
            if (!sent) await conn.unsafe("ROLLBACK").catch(() => undefined);
            throw err;
          }
        } finally {
          conn.release();
        }
      };
      return client.run(run, () => !sent);
    },
    read: (body) => client.run((sql) => body(pgTx(sql, space)), always),
    async markerSecret() {
      secret ??= await client.run(async (sql) => {
        await sql`INSERT INTO lorecards.meta (space, key, value) VALUES (${space}, 'marker-secret', ${randomHex(24)})
          ON CONFLICT (space, key) DO NOTHING`;
        const [row] =
          await sql`SELECT value FROM lorecards.meta WHERE space = ${space} AND key = 'marker-secret'`;
        return row.value as string;
      }, always);
      return secret;
    },
    async appendHits(entries) {
      const lines = entries.map((e) => JSON.stringify(e));
      // An insert cut off may have been committed: a hit line is a convenience, so it is not sent twice.
      await client.run(
        async (sql) => {
          const rows = await sql`INSERT INTO lorecards.hits (space, entry)
          SELECT ${space}, unnest(${sql.array(lines, "TEXT")}::text[]) RETURNING n`;
          const numbers = rows.map((r: { n: unknown }) => Number(r.n));
          const crossed =
            Math.floor(Math.max(...numbers) / PRUNE_EVERY) !==
            Math.floor((Math.min(...numbers) - 1) / PRUNE_EVERY);
          if (crossed)
            await sql`DELETE FROM lorecards.hits WHERE space = ${space} AND n < (SELECT n FROM lorecards.hits
            WHERE space = ${space} ORDER BY n DESC OFFSET ${HITS_KEPT - 1} LIMIT 1)`;
        },
        () => false,
      );
    },
    recentHits: (limit) =>
      client.run(async (sql) => {
        const rows =
          await sql`SELECT entry FROM lorecards.hits WHERE space = ${space} ORDER BY n DESC LIMIT ${limit}`;
        return rows.map((r: { entry: string }) => JSON.parse(r.entry) as HitEntry);
      }, always),
    close: release,
  };
}
