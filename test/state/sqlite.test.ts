import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { SCHEMA_VERSION } from "../../src/state/_sqlite-file.ts";
import { openStore, type Store, type StoreOptions, statePath, stateUrl } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { noon, record, storeContract, turnRecord, usage } from "./contract.ts";

const quiet = () => {};

storeContract("sqlite", () => {
  const root = tempDir();
  return {
    open: (limits) => openStore(stateUrl(root), { limits, warn: quiet }),
    dispose: () => removeDir(root),
  };
});

const dirs: string[] = [];
const stores: Store[] = [];

async function opened(root: string, options: StoreOptions = { warn: quiet }): Promise<Store> {
  const store = await openStore(stateUrl(root), options);
  stores.push(store);
  return store;
}

async function fresh(): Promise<{ root: string; store: Store }> {
  const root = tempDir();
  dirs.push(root);
  return { root, store: await opened(root) };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

describe("sqlite store: the file", () => {
  test("sqlite:<path> opens that file, a relative path from the working directory", async () => {
    const root = tempDir();
    dirs.push(root);
    fs.mkdirSync(path.join(root, "here"));
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const store = await openStore("sqlite:here/x.db", { warn: quiet });
      stores.push(store);
      await store.commitTurn("c1", { turn: 1, now: 1 });
    } finally {
      process.chdir(cwd);
    }
    expect(fs.existsSync(path.join(root, "here", "x.db"))).toBe(true);
  });

  test("nothing is created until something is written", async () => {
    const { root, store } = await fresh();
    expect(await store.recentHits(5)).toEqual([]);
    expect((await store.loadConversation("c1")).turn).toBe(0);
    expect(fs.readdirSync(root)).toEqual([".lorecards"]);
    expect(fs.readdirSync(path.join(root, ".lorecards")).filter((f) => !f.startsWith("state.db"))).toEqual(
      [],
    );
    const untouched = tempDir();
    dirs.push(untouched);
    await (await opened(untouched)).recentHits(5);
    expect(fs.readdirSync(untouched)).toEqual([]);
  });

  test("a state file that is not a database is moved aside and rebuilt empty", async () => {
    const root = tempDir();
    dirs.push(root);
    fs.mkdirSync(path.join(root, ".lorecards"));
    fs.writeFileSync(statePath(root), "this is not sqlite ".repeat(300));
    const lines: string[] = [];
    const store = await opened(root, { warn: (l) => lines.push(l) });
    await store.commitTurn("c1", { turn: 1, now: 1 });
    expect((await store.loadConversation("c1")).turn).toBe(1);
    expect(lines[0]).toContain("rebuilt empty");
    expect(fs.readdirSync(path.join(root, ".lorecards")).some((f) => f.startsWith("state.db.corrupt-"))).toBe(
      true,
    );
  });

  test("a database that goes bad while open is rebuilt and the operation still succeeds", async () => {
    const { root, store } = await fresh();
    await store.commitTurn("c1", { turn: 1, now: 1 });
    await store.close();
    const reopened = await opened(root);
    await reopened.loadConversation("c1");
    fs.writeFileSync(statePath(root), Buffer.alloc(8192, 0x41));
    fs.rmSync(`${statePath(root)}-wal`, { force: true });
    await reopened.commitTurn("c2", { turn: 3, now: 2 });
    expect((await reopened.loadConversation("c2")).turn).toBe(3);
  });

  test("the state file lives in the vault's .lorecards folder and uses WAL", async () => {
    const { root, store } = await fresh();
    await store.commitTurn("c1", { turn: 1, now: 1 });
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db-wal"))).toBe(true);
  });

  test("a vault folder that does not exist is an error, not a new folder", async () => {
    const root = path.join(tempDir(), "missing");
    dirs.push(path.dirname(root));
    await expect(openStore(stateUrl(root), { warn: quiet })).rejects.toThrow();
    expect(fs.existsSync(root)).toBe(false);
  });

  test("a version 1 state file is migrated in place and keeps its conversations", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const v1 = new Database(file, { create: true });
    v1.exec(`CREATE TABLE conversations (id TEXT PRIMARY KEY, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL);
      CREATE TABLE injections (conversation TEXT NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL,
        version TEXT NOT NULL, PRIMARY KEY (conversation, card)) WITHOUT ROWID;
      CREATE TABLE replays (conversation TEXT NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL,
        place TEXT NOT NULL, text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
        PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
      INSERT INTO conversations VALUES ('old', 3, 5);
      PRAGMA user_version = 1;`);
    v1.close();
    const store = await opened(root);
    expect(await store.loadConversation("old")).toMatchObject({ turn: 3, lastSeen: 5 });
    await store.commitTurn("old", { turn: 4, now: 6, opening: "o" });
    expect(await store.findByOpening("o")).toBe("old");
    const db = new Database(file, { readonly: true });
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(
      SCHEMA_VERSION,
    );
    db.close();
  });

  test("a version 2 state file is migrated in place: its conversations stay, and now keep a timed memory", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const v2 = new Database(file, { create: true });
    v2.exec(`CREATE TABLE conversations (id TEXT PRIMARY KEY, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL, opening TEXT);
      CREATE TABLE injections (conversation TEXT NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL,
        version TEXT NOT NULL, PRIMARY KEY (conversation, card)) WITHOUT ROWID;
      CREATE TABLE replays (conversation TEXT NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL,
        place TEXT NOT NULL, text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
        PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
      INSERT INTO conversations VALUES ('old', 3, 5, 'o');
      INSERT INTO injections VALUES ('old', 'people/Alice', 3, '1:1');
      PRAGMA user_version = 2;`);
    v2.close();
    const store = await opened(root);
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
    const db = new Database(file, { readonly: true });
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(
      SCHEMA_VERSION,
    );
    db.close();
  });

  test("a version 3 state file is migrated in place: every conversation keeps its ledger, replay records and timed memory", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const v3 = new Database(file, { create: true });
    v3.exec(`CREATE TABLE conversations (id TEXT PRIMARY KEY, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL,
        opening TEXT, timed TEXT);
      CREATE INDEX conversations_seen ON conversations (last_seen);
      CREATE INDEX conversations_opening ON conversations (opening, last_seen);
      CREATE TABLE injections (conversation TEXT NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL,
        version TEXT NOT NULL, PRIMARY KEY (conversation, card)) WITHOUT ROWID;
      CREATE TABLE replays (conversation TEXT NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL,
        place TEXT NOT NULL, text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
        PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
      INSERT INTO conversations VALUES ('later', 4, 9, 'o', '{"people/Bob":{"last":3}}');
      INSERT INTO conversations VALUES ('earlier', 2, 5, 'o', NULL);
      INSERT INTO injections VALUES ('later', 'people/Bob', 3, '1:1'), ('earlier', 'people/Alice', 2, '2:2');
      INSERT INTO replays VALUES ('later', 1, 'h1', 'prefix', 'block 1', 3, '[{"id":"people/Bob","version":"1:1"}]');
      PRAGMA user_version = 3;`);
    v3.close();
    const store = await opened(root);
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
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(
      SCHEMA_VERSION,
    );
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM injections").get()?.n).toBe(1);
    db.close();
  });

  test("a version 4 state file is migrated in place: rows stay, replay records read without role or tier, and turns are recorded", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const v4 = new Database(file, { create: true });
    v4.exec(`CREATE TABLE conversations (
        n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL,
        opening TEXT, timed TEXT);
      CREATE TABLE injections (
        conversation INTEGER NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL, version TEXT NOT NULL,
        PRIMARY KEY (conversation, card)) WITHOUT ROWID;
      CREATE TABLE replays (
        conversation INTEGER NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL, place TEXT NOT NULL,
        text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
        PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
      CREATE INDEX conversations_seen ON conversations (last_seen);
      CREATE INDEX conversations_opening ON conversations (opening, last_seen);
      INSERT INTO conversations VALUES (1, 'old', 4, 9, 'o', '{"people/Bob":{"last":3}}');
      INSERT INTO injections VALUES (1, 'people/Bob', 3, '1:1');
      INSERT INTO replays VALUES (1, 1, 'h1', 'prefix', 'block 1', 3, '[{"id":"people/Bob","version":"1:1"}]');
      PRAGMA user_version = 4;`);
    v4.close();
    const store = await opened(root);
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
    const db = new Database(file, { readonly: true });
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(
      SCHEMA_VERSION,
    );
    db.close();
  });
});

describe("sqlite store: schemas 6 and 7", () => {
  test("a version 5 state file is migrated in place: every row of every table stays, and index recalls are kept", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const v5 = new Database(file, { create: true });
    v5.exec(`CREATE TABLE conversations (
        n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL,
        opening TEXT, timed TEXT);
      CREATE TABLE injections (
        conversation INTEGER NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL, version TEXT NOT NULL,
        PRIMARY KEY (conversation, card)) WITHOUT ROWID;
      CREATE TABLE replays (
        conversation INTEGER NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL, place TEXT NOT NULL,
        text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL, role TEXT, tier TEXT,
        PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
      CREATE INDEX conversations_seen ON conversations (last_seen);
      CREATE INDEX conversations_opening ON conversations (opening, last_seen);
      CREATE TABLE turns (
        conversation INTEGER NOT NULL, turn INTEGER NOT NULL, at INTEGER NOT NULL, surface TEXT NOT NULL,
        record TEXT NOT NULL, PRIMARY KEY (conversation, turn)) WITHOUT ROWID;
      CREATE INDEX turns_at ON turns (at);
      CREATE TABLE days (day TEXT PRIMARY KEY, totals TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO conversations VALUES (1, 'old', 4, 9, 'o', '{"people/Bob":{"last":3}}');
      INSERT INTO injections VALUES (1, 'people/Bob', 3, '1:1');
      INSERT INTO replays VALUES (1, 1, 'h1', 'prefix', 'block 1', 3, '[{"id":"people/Bob","version":"1:1"}]', NULL, 'volatile');
      INSERT INTO days VALUES ('2025-03-01', '{"turns":1}');
      PRAGMA user_version = 5;`);
    const { conversation: _id, ...stored } = turnRecord("old", 4, noon(1));
    v5.query("INSERT INTO turns VALUES (1, 4, ?, 'gateway', ?)").run(noon(1), JSON.stringify(stored));
    const counts = (db: Database) =>
      ["conversations", "injections", "replays", "turns", "days"].map(
        (t) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()?.n,
      );
    const rowsBefore = counts(v5);
    expect(rowsBefore).toEqual([1, 1, 1, 1, 1]);
    v5.close();

    const store = await opened(root);
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
    const db = new Database(file, { readonly: true });
    expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(7);
    expect(SCHEMA_VERSION).toBe(7);
    expect(counts(db)).toEqual(rowsBefore);
    db.close();
  });

  test("a version 6 state file is migrated in place: its conversations stay, and can now be named", async () => {
    const root = tempDir();
    dirs.push(root);
    const file = statePath(root);
    const store = await opened(root);
    await store.recordTurn(turnRecord("c1", 1, noon(1)));
    await store.close();
    const v6 = new Database(file);
    v6.exec("ALTER TABLE conversations DROP COLUMN name; PRAGMA user_version = 6;");
    v6.close();
    const again = await opened(root);
    expect(await again.conversations(5)).toEqual([
      { id: "c1", surface: "gateway", turns: 1, lastSeen: noon(1), name: null },
    ]);
    expect(await again.nameConversation("c1", "first")).toBe(true);
    expect((await again.conversations(5))[0]!.name).toBe("first");
    await again.close();
  });
});

describe("sqlite store: the file under it", () => {
  test.each([
    ["state.db alone", [""]],
    ["state.db, -wal and -shm", ["", "-wal", "-shm"]],
  ])(
    "a state file deleted while the store is open (%s) is opened anew, with one line on stderr",
    async (_name, suffixes) => {
      const root = tempDir();
      dirs.push(root);
      const warnings: string[] = [];
      const store = await opened(root, { warn: (l) => warnings.push(l) });
      await store.commitTurn("before", { turn: 1, now: 1 });
      for (const s of suffixes) fs.rmSync(statePath(root) + s, { force: true });
      await store.commitTurn("after", { turn: 2, now: 2, replay: record(1, 2, ["people/alice"]) });
      await store.commitTurn("after", { turn: 3, now: 3 });
      expect((await store.loadConversation("before")).turn).toBe(0);
      const other = await opened(root);
      expect(await other.loadConversation("after")).toMatchObject({
        turn: 3,
        replays: [record(1, 2, ["people/alice"])],
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("deleted or replaced");
    },
  );

  test("a state file replaced by another (moved aside and rebuilt elsewhere) is followed", async () => {
    const { root, store } = await fresh();
    await store.commitTurn("old", { turn: 1, now: 1 });
    fs.renameSync(statePath(root), `${statePath(root)}.aside`);
    const other = await opened(root);
    await other.commitTurn("new", { turn: 4, now: 4 });
    expect((await store.loadConversation("new")).turn).toBe(4);
    expect((await store.loadConversation("old")).turn).toBe(0);
  });

  test("a store whose vault is gone re-creates neither the vault nor its state folder", async () => {
    const { root, store } = await fresh();
    await store.commitTurn("c", { turn: 1, now: 1 });
    removeDir(root);
    await expect(store.commitTurn("c", { turn: 2, now: 2 })).rejects.toThrow(/vault/);
    await expect(
      store.appendHits([{ time: "t", source: "try", keys: [], words: [], message: "" }]),
    ).rejects.toThrow();
    await expect(store.markerSecret()).rejects.toThrow();
    expect(fs.existsSync(root)).toBe(false);
  });
});

describe("sqlite store: several processes", () => {
  test("commits from three processes at once lose nothing", async () => {
    const { root, store } = await fresh();
    const module = path.resolve(import.meta.dir, "../../src/state/index.ts");
    const script = (n: number) => `
      const { openStore, stateUrl } = await import(${JSON.stringify(module)});
      const store = await openStore(stateUrl(${JSON.stringify(root)}));
      for (let i = 0; i < 30; i++)
        await store.commitTurn("shared", { turn: 1, now: i, injections: [{ id: "p${n}/" + i, version: "v", turn: 1 }] });
      await store.close();`;
    const procs = [1, 2, 3].map((n) =>
      Bun.spawn([process.execPath, "-e", script(n)], { stdout: "ignore", stderr: "pipe" }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual([0, 0, 0]);
    expect((await store.loadConversation("shared")).injections).toHaveLength(90);
  });
});
