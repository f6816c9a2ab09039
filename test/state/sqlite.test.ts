import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openSqliteStore, type ReplayRecord, type Store, statePath } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const dirs: string[] = [];
const stores: Store[] = [];
const quiet = () => {};

function fresh(limits?: Parameters<typeof openSqliteStore>[1]): { root: string; store: Store } {
  const root = tempDir();
  dirs.push(root);
  const store = openSqliteStore(root, { warn: quiet, ...limits });
  stores.push(store);
  return { root, store };
}

function record(anchor: number, turn: number, ids: string[], hash = `h${anchor}`): ReplayRecord {
  return {
    anchor,
    hash,
    place: "prefix",
    text: `block ${anchor}`,
    turn,
    cards: ids.map((id) => ({ id, version: "1:1" })),
  };
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

describe("sqlite store", () => {
  test("a conversation never seen loads empty", () => {
    const { store } = fresh();
    expect(store.load("c1")).toEqual({ id: "c1", turn: 0, lastSeen: 0, injections: [], replays: [] });
  });

  test("a commit records injections, the replay record, the turn and the time seen", () => {
    const { store } = fresh();
    const r = record(1, 1, ["people/Alice"]);
    store.commit("c1", {
      turn: 1,
      now: 1000,
      injections: [{ id: "people/Alice", version: "1:1", turn: 1 }],
      replay: r,
    });
    expect(store.load("c1")).toEqual({
      id: "c1",
      turn: 1,
      lastSeen: 1000,
      injections: [{ id: "people/Alice", version: "1:1", turn: 1 }],
      replays: [r],
    });
  });

  test("the first record for a message wins, so a retry of the turn replays the same bytes", () => {
    const { store } = fresh();
    store.commit("c1", { turn: 1, now: 1, replay: record(1, 1, ["people/Alice"]) });
    store.commit("c1", { turn: 1, now: 2, replay: { ...record(1, 1, ["people/Bob"]), text: "other" } });
    expect(store.load("c1").replays.map((r) => r.text)).toEqual(["block 1"]);
  });

  test("a turn index that goes backwards starts a new clock and drops what came later", () => {
    const { store } = fresh();
    store.commit("c1", {
      turn: 1,
      now: 1,
      injections: [{ id: "a/x", version: "v", turn: 1 }],
      replay: record(1, 1, ["a/x"]),
    });
    store.commit("c1", {
      turn: 5,
      now: 2,
      injections: [{ id: "a/y", version: "v", turn: 5 }],
      replay: record(9, 5, ["a/y"]),
    });
    store.commit("c1", { turn: 2, now: 3 });
    const c = store.load("c1");
    expect(c.turn).toBe(2);
    expect(c.injections.map((i) => i.id)).toEqual(["a/x"]);
    expect(c.replays.map((r) => r.anchor)).toEqual([1]);
  });

  test("a conversation keeps at most the cap of cards, the most recent ones", () => {
    const { store } = fresh({ limits: { cardsPerConversation: 3, replaysPerConversation: 2 } });
    for (let t = 1; t <= 5; t++) {
      store.commit("c1", {
        turn: t,
        now: t,
        injections: [{ id: `k/${t}`, version: "v", turn: t }],
        replay: record(t * 2, t, [`k/${t}`]),
      });
    }
    const c = store.load("c1");
    expect(c.injections.map((i) => i.id)).toEqual(["k/3", "k/4", "k/5"]);
    expect(c.replays.map((r) => r.anchor)).toEqual([8, 10]);
  });

  test("beyond the conversation cap the least recently seen conversation is dropped", () => {
    const { store } = fresh({ limits: { conversations: 2 } });
    store.commit("old", { turn: 1, now: 1, replay: record(0, 1, ["a/x"]) });
    store.commit("mid", { turn: 1, now: 2 });
    store.commit("old", { turn: 2, now: 3 });
    store.commit("new", { turn: 1, now: 4 });
    expect(store.load("mid").lastSeen).toBe(0);
    expect(store.load("old").replays).toHaveLength(1);
    expect(store.load("new").turn).toBe(1);
  });

  test("advance counts turns for callers that have no request to count", () => {
    const { store } = fresh();
    expect([store.advance("h", 1), store.advance("h", 2), store.advance("h", 3)]).toEqual([1, 2, 3]);
  });

  test("a state file that is not a database is moved aside and rebuilt empty", () => {
    const root = tempDir();
    dirs.push(root);
    fs.mkdirSync(path.join(root, ".lorecards"));
    fs.writeFileSync(statePath(root), "this is not sqlite ".repeat(300));
    const lines: string[] = [];
    const store = openSqliteStore(root, { warn: (l) => lines.push(l) });
    stores.push(store);
    store.commit("c1", { turn: 1, now: 1 });
    expect(store.load("c1").turn).toBe(1);
    expect(lines[0]).toContain("rebuilt empty");
    expect(fs.readdirSync(path.join(root, ".lorecards")).some((f) => f.startsWith("state.db.corrupt-"))).toBe(
      true,
    );
  });

  test("a database that goes bad while open is rebuilt and the operation still succeeds", () => {
    const { root, store } = fresh();
    store.commit("c1", { turn: 1, now: 1 });
    store.close();
    stores.pop();
    const reopened = openSqliteStore(root, { warn: quiet });
    stores.push(reopened);
    fs.writeFileSync(statePath(root), Buffer.alloc(8192, 0x41));
    fs.rmSync(`${statePath(root)}-wal`, { force: true });
    reopened.commit("c2", { turn: 3, now: 2 });
    expect(reopened.load("c2").turn).toBe(3);
  });

  test("the state file lives in the vault's .lorecards folder and uses WAL", () => {
    const { root, store } = fresh();
    store.commit("c1", { turn: 1, now: 1 });
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db-wal"))).toBe(true);
  });

  test("a vault folder that does not exist is an error, not a new folder", () => {
    const root = path.join(tempDir(), "missing");
    dirs.push(path.dirname(root));
    expect(() => openSqliteStore(root, { warn: quiet })).toThrow();
    expect(fs.existsSync(root)).toBe(false);
  });
});

describe("sqlite store: how conversations opened", () => {
  test("the latest conversation that opened a given way is found; the first opening given is kept", () => {
    const { store } = fresh();
    store.commit("older", { turn: 1, now: 10, opening: "o1" });
    store.commit("newer", { turn: 1, now: 20, opening: "o1" });
    store.commit("newer", { turn: 2, now: 30, opening: "o2" });
    expect(store.findByOpening("o1")).toBe("newer");
    expect(store.findByOpening("o2")).toBeNull();
  });

  test("a version 1 state file is migrated in place and keeps its conversations", () => {
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
    const store = openSqliteStore(root, { warn: quiet });
    stores.push(store);
    expect(store.load("old")).toMatchObject({ turn: 3, lastSeen: 5 });
    store.commit("old", { turn: 4, now: 6, opening: "o" });
    expect(store.findByOpening("o")).toBe("old");
  });
});

describe("sqlite store: the file under it", () => {
  test.each([
    ["state.db alone", [""]],
    ["state.db, -wal and -shm", ["", "-wal", "-shm"]],
  ])(
    "a state file deleted while the store is open (%s) is opened anew, with one line on stderr",
    (_name, suffixes) => {
      const root = tempDir();
      dirs.push(root);
      const warnings: string[] = [];
      const store = openSqliteStore(root, { warn: (l) => warnings.push(l) });
      stores.push(store);
      store.commit("before", { turn: 1, now: 1 });
      for (const s of suffixes) fs.rmSync(statePath(root) + s, { force: true });
      store.commit("after", { turn: 2, now: 2, replay: record(1, 2, ["people/alice"]) });
      store.commit("after", { turn: 3, now: 3 });
      expect(store.load("before").turn).toBe(0);
      const other = openSqliteStore(root, { warn: quiet });
      stores.push(other);
      expect(other.load("after")).toMatchObject({ turn: 3, replays: [record(1, 2, ["people/alice"])] });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("deleted or replaced");
    },
  );

  test("a state file replaced by another (moved aside and rebuilt elsewhere) is followed", () => {
    const { root, store } = fresh();
    store.commit("old", { turn: 1, now: 1 });
    fs.renameSync(statePath(root), `${statePath(root)}.aside`);
    const other = openSqliteStore(root, { warn: quiet });
    stores.push(other);
    other.commit("new", { turn: 4, now: 4 });
    expect(store.load("new").turn).toBe(4);
    expect(store.load("old").turn).toBe(0);
  });

  test("a store whose vault is gone re-creates neither the vault nor its state folder", () => {
    const { root, store } = fresh();
    store.commit("c", { turn: 1, now: 1 });
    removeDir(root);
    expect(() => store.commit("c", { turn: 2, now: 2 })).toThrow(/vault/);
    expect(fs.existsSync(root)).toBe(false);
  });
});
