import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, type Store, type StoreOptions, statePath, stateUrl } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { record, storeContract } from "./contract.ts";

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
    // The folder's own .gitignore (state-dir.ts) aside.
    expect(fs.readdirSync(path.join(root, ".lorecards")).filter((f) => !f.startsWith("state.db"))).toEqual([
      ".gitignore",
    ]);
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
    // A process that failed is shown by what it said (it failed once in a CI run, with nothing to read).
    const said = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect(codes.map((code, i) => (code === 0 ? 0 : `exit ${code}: ${said[i]}`))).toEqual([0, 0, 0]);
    expect((await store.loadConversation("shared")).injections).toHaveLength(90);
  });
});

/**
 * A connection keeps the ledgers it read lately decoded (src/state/_sqlite-ledgers.ts): a long
 * conversation's request no longer reads and parses its whole ledger. What a load gives must stay what
 * the file holds, whoever wrote it.
 */
describe("sqlite store: the ledgers a connection keeps", () => {
  /** What a handle opened now reads of conversation `id`: the file's own. */
  async function onFile(root: string, id: string) {
    const other = await opened(root);
    const c = await other.loadConversation(id);
    return { turn: c.turn, injections: c.injections, replays: c.replays };
  }
  const loaded = async (store: Store, id: string) => {
    const c = await store.loadConversation(id);
    return { turn: c.turn, injections: c.injections, replays: c.replays };
  };

  test("turns that add, replace and drop cards and records, a cap, a client going back and evictions: every load is the file's", async () => {
    const root = tempDir();
    dirs.push(root);
    const store = await opened(root, {
      warn: quiet,
      limits: { cardsPerConversation: 4, replaysPerConversation: 3, conversations: 3 },
    });
    // A fixed sequence that touches every kind of change: new and repeated cards, a record at an
    // anchor already taken, the caps, a turn number that goes back (a new clock), and conversations
    // past the conversation cap, whose numbers the file may hand out again.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const turns = new Map<string, number>();
    for (let step = 0; step < 160; step++) {
      const id = `c${next(6)}`;
      const back = next(9) === 0;
      const turn = back ? Math.max(1, (turns.get(id) ?? 1) - 2) : (turns.get(id) ?? 0) + 1;
      turns.set(id, turn);
      const ids = Array.from({ length: 1 + next(3) }, () => `k/${next(8)}`);
      await store.commitTurn(id, {
        turn,
        now: step + 1,
        injections: ids.map((card) => ({ id: card, version: `v${next(3)}`, turn })),
        ...(next(4) !== 0 && { replay: record(next(5), turn, ids, `h${next(3)}`) }),
      });
      expect(await loaded(store, id), `step ${step}`).toEqual(await onFile(root, id));
      const other = `c${next(6)}`;
      expect(await loaded(store, other), `step ${step}, ${other}`).toEqual(await onFile(root, other));
    }
  });

  test("what another connection commits to a conversation this one has read is in its next load", async () => {
    const { root, store } = await fresh();
    await store.commitTurn("c1", {
      turn: 1,
      now: 1,
      injections: [{ id: "a/x", version: "1", turn: 1 }],
      replay: record(1, 1, ["a/x"]),
    });
    expect((await store.loadConversation("c1")).replays).toHaveLength(1);
    const other = await opened(root);
    await other.commitTurn("c1", {
      turn: 2,
      now: 2,
      injections: [{ id: "a/y", version: "1", turn: 2 }],
      replay: record(3, 2, ["a/y"]),
    });
    const again = await store.loadConversation("c1");
    expect(again.replays.map((r) => r.anchor)).toEqual([1, 3]);
    expect(again.injections.map((i) => i.id)).toEqual(["a/x", "a/y"]);
  });

  test("a write that fails in a group commit leaves the kept ledgers as the file has them", async () => {
    const { root, store } = await fresh();
    const x = [{ id: "a/x", version: "1", turn: 1 }];
    await store.commitTurn("c1", { turn: 1, now: 1, injections: x, replay: record(1, 1, ["a/x"]) });
    await store.loadConversation("c1");
    // Two writes of one moment share a transaction; the second cannot be stored (its record's cards
    // are no JSON), so the transaction is rolled back and run again without it.
    const cyclic: { id: string; version: string; self?: unknown } = { id: "a/z", version: "1" };
    cyclic.self = cyclic;
    const y = [{ id: "a/y", version: "1", turn: 2 }];
    const [good, bad] = await Promise.allSettled([
      store.commitTurn("c1", { turn: 2, now: 2, injections: y, replay: record(3, 2, ["a/y"]) }),
      store.commitTurn("c2", { turn: 1, now: 2, replay: { ...record(1, 1, []), cards: [cyclic] } }),
    ]);
    expect([good.status, bad.status]).toEqual(["fulfilled", "rejected"]);
    expect(await loaded(store, "c1")).toEqual(await onFile(root, "c1"));
    expect((await loaded(store, "c1")).replays.map((r) => r.anchor)).toEqual([1, 3]);
  });
});
