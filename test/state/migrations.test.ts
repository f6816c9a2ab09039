// A state file an older binary left is migrated in place when a store opens it, and keeps what it held.
// Each older schema is a fixture file (fixtures/state-v<N>.sql: its tables and a few rows, as that
// version wrote them); the table below says what each must still read, and what it can do now.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { SCHEMA_VERSION } from "../../src/state/_sqlite-file.ts";
import { openStore, type Store, type StoreOptions, statePath, stateUrl } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { noon, record, turnRecord, usage } from "./contract.ts";

const quiet = () => {};
const dirs: string[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function opened(root: string, options: StoreOptions = { warn: quiet }): Promise<Store> {
  const store = await openStore(stateUrl(root), options);
  stores.push(store);
  return store;
}

/** A vault whose state.db is as schema `version` left it, `more` run on it after the fixture. */
function vaultAt(version: number, more?: (db: Database) => void): { root: string; file: string } {
  const root = tempDir();
  dirs.push(root);
  const file = statePath(root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { create: true });
  db.exec(fs.readFileSync(path.join(import.meta.dir, "fixtures", `state-v${version}.sql`), "utf8"));
  more?.(db);
  db.close();
  return { root, file };
}

function userVersion(file: string): number | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version;
  } finally {
    db.close();
  }
}

const TABLES = ["conversations", "injections", "replays", "turns", "days"];

function rowCounts(file: string): (number | undefined)[] {
  const db = new Database(file, { readonly: true });
  try {
    return TABLES.map((t) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()?.n);
  } finally {
    db.close();
  }
}

interface Migration {
  version: number;
  what: string;
  /** Run on the old file after its fixture (rows that depend on the test's own values). */
  more?: (db: Database) => void;
  check(store: Store, file: string, root: string): Promise<void>;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    what: "it keeps its conversations",
    async check(store) {
      expect(await store.loadConversation("old")).toMatchObject({ turn: 3, lastSeen: 5 });
      await store.commitTurn("old", { turn: 4, now: 6, opening: "o" });
      expect(await store.findByOpening("o")).toBe("old");
    },
  },
  {
    version: 2,
    what: "its conversations stay, and now keep a timed memory",
    async check(store) {
      expect(await store.loadConversation("old")).toMatchObject({
        turn: 3,
        lastSeen: 5,
        injections: [{ id: "people/Alice", turn: 3, version: "1:1" }],
        timed: {},
      });
      expect(await store.findByOpening("o")).toBe("old");
      await store.commitTurn("old", {
        turn: 4,
        now: 6,
        timed: { "people/Alice": { last: 7, stickyUntil: 9 } },
      });
      expect((await store.loadConversation("old")).timed).toEqual({
        "people/Alice": { last: 7, stickyUntil: 9 },
      });
    },
  },
  {
    version: 3,
    what: "every conversation keeps its ledger, replay records and timed memory",
    async check(store, file, root) {
      expect(await store.loadConversation("later")).toEqual({
        id: "later",
        turn: 4,
        lastSeen: 9,
        injections: [{ id: "people/Bob", turn: 3, version: "1:1" }],
        replays: [record(1, 3, ["people/Bob"])],
        timed: { "people/Bob": { last: 3 } },
      });
      expect((await store.loadConversation("earlier")).injections).toEqual([
        { id: "people/Alice", turn: 2, version: "2:2" },
      ]);
      expect(await store.findByOpening("o")).toBe("later");
      // The cap still drops the least recently seen first, with what it holds.
      const capped = await opened(root, { warn: quiet, limits: { conversations: 2 } });
      await capped.commitTurn("new", { turn: 1, now: 10 });
      expect((await capped.loadConversation("earlier")).turn).toBe(0);
      expect((await capped.loadConversation("later")).injections).toHaveLength(1);
      const db = new Database(file, { readonly: true });
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM injections").get()?.n).toBe(1);
      db.close();
    },
  },
  {
    version: 4,
    what: "rows stay, replay records read without role or tier, and turns are recorded",
    async check(store) {
      expect(await store.loadConversation("old")).toEqual({
        id: "old",
        turn: 4,
        lastSeen: 9,
        injections: [{ id: "people/Bob", turn: 3, version: "1:1" }],
        replays: [record(1, 3, ["people/Bob"])],
        timed: { "people/Bob": { last: 3 } },
      });
      expect(await store.findByOpening("o")).toBe("old");
      await store.recordTurn(turnRecord("old", 5, noon(1)));
      await store.recordUsage("old", 5, usage(100), noon(1));
      expect(await store.turns("old", 5)).toEqual([
        { ...turnRecord("old", 5, noon(1)), usage: usage(100), requests: 1 },
      ]);
      expect(await store.days("2025-03-01")).toEqual([expect.objectContaining({ turns: 1, uncached: 100 })]);
    },
  },
  {
    version: 5,
    what: "every row of every table stays, and index recalls are kept",
    more(db) {
      const { conversation: _id, ...stored } = turnRecord("old", 4, noon(1));
      db.query("INSERT INTO turns VALUES (1, 4, ?, 'gateway', ?)").run(noon(1), JSON.stringify(stored));
    },
    async check(store, file) {
      expect(await store.loadConversation("old")).toEqual({
        id: "old",
        turn: 4,
        lastSeen: 9,
        injections: [{ id: "people/Bob", turn: 3, version: "1:1" }],
        replays: [{ ...record(1, 3, ["people/Bob"]), tier: "volatile" }],
        timed: { "people/Bob": { last: 3 } },
      });
      expect(await store.turns("old", 5)).toEqual([turnRecord("old", 4, noon(1))]);
      await store.recordRecall({
        session: "old",
        query: "q1",
        at: noon(2),
        surface: "gateway",
        cards: ["people/Bob"],
      });
      expect(
        await store.recordAdoption({ session: "old", query: "q1", card: "people/Bob", at: noon(2, 1) }),
      ).toBe("recorded");
      expect((await store.cardUsage(noon(1))).cards).toEqual([
        { card: "people/Bob", recalled: 1, opened: 1, lastRecalled: noon(2), lastOpened: noon(2, 1) },
      ]);
      await store.close();
      expect(rowCounts(file)).toEqual([1, 1, 1, 1, 1]);
    },
  },
];

test.each(MIGRATIONS)("a version $version state file is migrated in place: $what", async (m) => {
  const { root, file } = vaultAt(m.version, m.more);
  if (m.version === 5) expect(rowCounts(file)).toEqual([1, 1, 1, 1, 1]);
  await m.check(await opened(root), file, root);
  expect(userVersion(file)).toBe(SCHEMA_VERSION);
});

test("the schema the table ends at is the one a store writes now", () => {
  expect(SCHEMA_VERSION).toBe(9);
});

/** A state file as version `version` left it: one of today's with what came after taken out. */
async function vaultBackTo(version: number, undo: string): Promise<string> {
  const root = tempDir();
  dirs.push(root);
  const store = await opened(root);
  await store.recordTurn(turnRecord("c1", 1, noon(1)));
  await store.commitTurn("c1", { turn: 1, now: noon(1), replay: record(2, 1, ["people/Bob"]), opening: "o" });
  await store.close();
  const old = new Database(statePath(root));
  old.exec(`${undo} PRAGMA user_version = ${version};`);
  old.close();
  return root;
}

test("a version 6 state file is migrated in place: its conversations stay, and can now be named", async () => {
  const root = await vaultBackTo(6, "ALTER TABLE conversations DROP COLUMN name; DROP TABLE lore_switches;");
  const again = await opened(root);
  expect(await again.conversations(5)).toEqual([
    { id: "c1", surface: "gateway", turns: 1, lastSeen: noon(1), name: null },
  ]);
  expect(await again.nameConversation("c1", "first")).toBe(true);
  expect((await again.conversations(5))[0]!.name).toBe("first");
  await again.close();
});

test("a version 7 state file is migrated in place: its conversations stay, and sessions take a lore switch", async () => {
  const root = await vaultBackTo(7, "DROP TABLE lore_switches;");
  const again = await opened(root);
  expect(await again.turns("c1", 5)).toEqual([turnRecord("c1", 1, noon(1))]);
  await again.setLore("c1", "declared", noon(2));
  expect((await again.loadConversation("c1")).lore).toBe("declared");
  await again.close();
  expect(userVersion(statePath(root))).toBe(SCHEMA_VERSION);
});

test("a version 8 state file is migrated in place: its turn and replay records stay, and are kept as before", async () => {
  const root = await vaultBackTo(
    8,
    `DROP TABLE turns; DROP TABLE replays;
     CREATE TABLE turns (conversation INTEGER NOT NULL, turn INTEGER NOT NULL, at INTEGER NOT NULL,
       surface TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (conversation, turn)) WITHOUT ROWID;
     CREATE INDEX turns_at ON turns (at);
     CREATE TABLE replays (conversation INTEGER NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL,
       place TEXT NOT NULL, text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL, role TEXT,
       tier TEXT, PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
     INSERT INTO turns SELECT n, 1, ${noon(1)}, 'gateway', '${JSON.stringify({ ...turnRecord("c1", 1, noon(1)), conversation: undefined })}' FROM conversations;
     INSERT INTO replays SELECT n, 2, 'h2', 'prefix', 'block 2', 1, '[{"id":"people/Bob","version":"1:1"}]', NULL, NULL FROM conversations;
     DROP INDEX conversations_opening; CREATE INDEX conversations_opening ON conversations (opening, last_seen);`,
  );
  const again = await opened(root);
  expect(await again.turns("c1", 5)).toEqual([turnRecord("c1", 1, noon(1))]);
  expect((await again.loadConversation("c1")).replays).toEqual([record(2, 1, ["people/Bob"])]);
  expect(await again.findByOpening("o")).toBe("c1");
  await again.recordTurn(turnRecord("c1", 2, noon(2)));
  await again.commitTurn("c1", { turn: 2, now: noon(2), replay: record(3, 2, ["people/Alice"]) });
  expect((await again.turns("c1", 5)).map((t) => t.turn)).toEqual([1, 2]);
  expect((await again.loadConversation("c1")).replays.map((r) => r.anchor)).toEqual([2, 3]);
  await again.close();
  expect(userVersion(statePath(root))).toBe(SCHEMA_VERSION);
  expect(rowCounts(statePath(root))).toEqual([1, 0, 2, 2, 2]);
});
