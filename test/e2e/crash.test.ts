// `kill -9` of the compiled binary at random points while it writes, then a look at every card file:
// the old version or the new one, whole, never torn or partial; `check` clean once the temp files a
// killed write leaves are old enough to sweep. test/interop/crash.test.ts kills `bun src/main.ts
// import` at two chosen moments; this covers the compiled binary, `import --force` over existing
// cards at random moments, the editor's HTTP API (`ui`) under a loop of writes, and `mcp` on stdio.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { cardFiles, seededRandom, startEditor, tempFiles, versionIn, versionText } from "./_writers.ts";

let bin = "";
let dir = "";
beforeAll(async () => {
  bin = await ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-crash-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = () => ({ HOME: dir });

async function lorecards(...args: string[]) {
  const r = await runBinary(args, { env: env() });
  if (r.code !== 0) throw new Error(`lorecards ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

function newVault(name: string): string {
  const root = path.join(dir, name);
  fs.mkdirSync(root);
  return root;
}

/** After the temp files of killed writes are old enough to be stale, `check` sweeps them and is clean. */
async function expectCheckClean(root: string): Promise<void> {
  const old = new Date(Date.now() - 11 * 60_000);
  for (const t of tempFiles(root)) {
    expect(path.basename(t)).toMatch(/^\..+\.\d+\.[0-9a-f]{8}\.tmp$/);
    fs.utimesSync(path.join(root, t), old, old);
  }
  const report = JSON.parse(await lorecards("check", "--vault", root, "--json")) as {
    errors: number;
    findings: { severity: string; detail: string }[];
  };
  expect(report.findings.filter((f) => f.severity === "error")).toEqual([]);
  expect(tempFiles(root)).toEqual([]);
}

const N = 400;
const gadget = (i: number) => `gadget ${String(i).padStart(4, "0")}`;
const book = (v: number) => ({
  entries: Object.fromEntries(
    Array.from({ length: N }, (_, i) => [
      String(i),
      { key: [gadget(i)], comment: gadget(i), content: versionText(gadget(i), v, 8) },
    ]),
  ),
});

/** Version of every gadget card on disk; a missing card is -1 (moved aside mid-replace, rolled forward later). */
function versions(root: string): number[] {
  const things = path.join(root, "things");
  return Array.from({ length: N }, (_, i) => {
    const file = path.join(things, `${gadget(i)}.md`);
    if (!fs.existsSync(file)) return -1;
    return versionIn(fs.readFileSync(file, "utf8"), gadget(i), 8);
  });
}

function planWritten(root: string): boolean {
  const state = path.join(root, ".lorecards");
  return fs
    .readdirSync(state)
    .some((n) => n.startsWith("import-") && fs.existsSync(path.join(state, n, "plan.json")));
}

function movedIn(file: string, v: number): boolean {
  try {
    return fs.readFileSync(file, "utf8").includes(` v${v}\n`);
  } catch {
    return false;
  }
}

async function until(ready: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ready() && performance.now() < deadline) await Bun.sleep(0.5);
}

describe("import --force of a big book, killed at random points", () => {
  test("every card is the old or the new version, and the next run makes the book whole", async () => {
    const rnd = seededRandom("crash/import");
    const root = newVault("import");
    await lorecards("init", root);
    const books = Array.from({ length: 8 }, (_, v) => {
      const file = path.join(dir, `book-v${v}.json`);
      fs.writeFileSync(file, JSON.stringify(book(v)));
      return file;
    });
    const started = performance.now();
    await lorecards("import", books[0]!, "--book", "main", "--kind", "thing", "--vault", root);
    const took = performance.now() - started;
    let settled = 0;
    const outcomes = { rolledBack: 0, rolledForward: 0, midMove: 0, finished: 0 };
    for (let v = 1; v < books.length; v++) {
      const child = Bun.spawn(
        [bin, "import", books[v]!, "--book", "main", "--kind", "thing", "--force", "--vault", root],
        {
          env: { PATH: process.env.PATH ?? "", ...env() },
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      // A third of the kills at a random time (mostly while staging), a third once the plan is written,
      // a third once the first card has moved (while moving the others).
      const first = path.join(root, "things", `${gadget(0)}.md`);
      if (v % 3 === 1) await Bun.sleep(rnd.int(0, Math.round(took * 1.1)));
      else if (v % 3 === 2) await until(() => planWritten(root) || child.exitCode !== null, took * 3);
      else await until(() => movedIn(first, v) || child.exitCode !== null, took * 3);
      child.kill("SIGKILL");
      await child.exited;
      // Right after the kill: whole files of the two versions only (a replaced card may be moved aside).
      const seen = new Set(versions(root));
      const mixed = seen.size > 1;
      const planned = planWritten(root);
      seen.delete(-1);
      for (const s of seen) expect([settled, v]).toContain(s);
      // The next export settles what the killed import left: all old, or all new.
      await lorecards("export", path.join(dir, "out.json"), "--vault", root);
      const after = new Set(versions(root));
      expect(after.size).toBe(1);
      const now = [...after][0]!;
      expect([settled, v]).toContain(now);
      if (mixed) outcomes.midMove++;
      else if (now !== v) outcomes.rolledBack++;
      else if (planned) outcomes.rolledForward++;
      else outcomes.finished++;
      settled = now;
      expect(fs.readdirSync(path.join(root, ".lorecards")).filter((n) => n.startsWith("import-"))).toEqual(
        [],
      );
    }
    console.log(`crash/import: ${books.length - 1} kills (import ~${Math.round(took)} ms):`, outcomes);
    await expectCheckClean(root);
  });
});

describe("the editor killed while its HTTP API writes", () => {
  test("each card is the last acknowledged version or the one in flight, whole", async () => {
    const rnd = seededRandom("crash/ui");
    const root = newVault("ui");
    await lorecards("init", root);
    const names = Array.from({ length: 6 }, (_, i) => `P${i}`);
    const acked = new Map<string, number>(names.map((n) => [n, 0]));
    const inflight = new Map<string, number>();
    const created = new Map<string, "acked" | "inflight">();
    for (const n of names)
      fs.writeFileSync(path.join(root, "people", `${n}.md`), `---\ntitle: ${n}\n---\n${versionText(n, 0)}`);

    let writes = 0;
    let caught = 0;
    let temps = 0;
    for (let round = 0; round < 6; round++) {
      const editor = await startEditor(bin, root, dir);
      let stop = false;
      const writer = async (w: number, mine: string[]) => {
        for (let v = 1; !stop; v++) {
          for (const n of mine) {
            const next = (acked.get(n) ?? 0) + 1;
            inflight.set(n, next);
            const res = await editor
              .api("PUT", `/api/cards/people/${n}`, { title: n, body: versionText(n, next) })
              .catch(() => null);
            if (res === null) return;
            expect(res.status).toBe(200);
            acked.set(n, next);
            inflight.delete(n);
            writes++;
          }
          const key = `T${round}-${w}-${v}`;
          created.set(key, "inflight");
          const res = await editor
            .api("POST", "/api/cards", { kind: "thing", key, body: versionText(key, 1) })
            .catch(() => null);
          if (res === null) return;
          expect(res.status).toBe(201);
          created.set(key, "acked");
        }
      };
      // A writer's failed expectation is kept until the editor is dead, so no process outlives the test.
      const failures: unknown[] = [];
      const writers = [names.slice(0, 2), names.slice(2, 4), names.slice(4)].map((mine, w) =>
        writer(w, mine).catch((err) => {
          failures.push(err);
        }),
      );
      try {
        await Bun.sleep(rnd.int(80, 500));
      } finally {
        await editor.kill();
        stop = true;
        await Promise.all(writers);
      }
      if (failures.length > 0) throw failures[0];

      const files = cardFiles(root);
      caught += inflight.size;
      temps += tempFiles(root).length;
      for (const n of names) {
        const v = versionIn(files.get(`people/${n}.md`)!, n);
        expect([acked.get(n), inflight.get(n)]).toContain(v);
        acked.set(n, v);
        inflight.delete(n);
      }
      for (const [key, state] of created) {
        const text = files.get(`things/${key}.md`);
        if (text === undefined) expect(state).toBe("inflight");
        else expect(versionIn(text, key)).toBe(1);
        if (state === "inflight") created.delete(key);
      }
    }
    console.log(
      `crash/ui: 6 kills, ${writes} acknowledged updates, ${caught} in flight at a kill, ${temps} temp files left`,
    );
    await expectCheckClean(root);
  });
});

describe("lorecards mcp killed while it writes", () => {
  test("the recent section is the last acknowledged text or the one in flight, whole", async () => {
    const rnd = seededRandom("crash/mcp");
    const root = newVault("mcp");
    await lorecards("init", root);
    let acked = -1;
    let writes = 0;
    for (let round = 0; round < 4; round++) {
      const transport = new StdioClientTransport({
        command: bin,
        args: ["mcp", "--vault", root],
        env: { PATH: process.env.PATH ?? "", HOME: dir },
        stderr: "ignore",
      });
      const client = new Client({ name: "crash-test", version: "0" });
      await client.connect(transport);
      const pid = transport.pid!;
      let inflight = -1;
      const loop = (async () => {
        for (let v = acked + 1; ; v++) {
          inflight = v;
          const r = await client
            .callTool({
              name: "write_card",
              arguments: { mode: "update_recent", name: "Alice", text: versionText("Alice", v) },
            })
            .catch(() => null);
          if (r === null || r.isError) return;
          acked = v;
          writes++;
        }
      })();
      await Bun.sleep(rnd.int(50, 400));
      process.kill(pid, "SIGKILL");
      await loop;
      await client.close().catch(() => undefined);
      const text = fs.readFileSync(path.join(root, "people", "Alice.md"), "utf8");
      if (acked === -1 && !text.includes("Alice v")) continue; // killed before the first write landed
      const v = versionIn(text, "Alice");
      expect([acked, inflight]).toContain(v);
      acked = v;
    }
    console.log(`crash/mcp: 4 kills, ${writes} acknowledged writes`);
    await expectCheckClean(root);
  });
});

describe("a killed import meets later writers and readers", () => {
  /**
   * An import of `book(1)` over `book(0)` killed before its last card moved: once its plan is written,
   * or once its first card moved (the book then half replaced on disk).
   */
  async function killedBeforeLastMove(root: string, when: "plan" | "first moved"): Promise<void> {
    const file = (v: number) => {
      const f = path.join(dir, `book-v${v}.json`);
      if (!fs.existsSync(f)) fs.writeFileSync(f, JSON.stringify(book(v)));
      return f;
    };
    await lorecards("init", root);
    await lorecards("import", file(0), "--book", "main", "--kind", "thing", "--vault", root);
    const first = path.join(root, "things", `${gadget(0)}.md`);
    const last = path.join(root, "things", `${gadget(N - 1)}.md`);
    const ready = when === "plan" ? () => planWritten(root) : () => movedIn(first, 1);
    for (let attempt = 0; attempt < 5; attempt++) {
      const child = Bun.spawn(
        [bin, "import", file(1), "--book", "main", "--kind", "thing", "--force", "--vault", root],
        {
          env: { PATH: process.env.PATH ?? "", ...env() },
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      await until(() => ready() || child.exitCode !== null, 10_000);
      child.kill("SIGKILL");
      await child.exited;
      if (ready() && planWritten(root) && movedIn(last, 0)) return;
      await lorecards("export", path.join(dir, "out.json"), "--vault", root); // settle, and try again
      await lorecards("import", file(0), "--book", "main", "--kind", "thing", "--force", "--vault", root);
    }
    throw new Error("could not kill the import between its plan and its last move");
  }

  test("an edit acknowledged after a killed import survives the import's recovery", async () => {
    const root = newVault("lost-edit");
    await killedBeforeLastMove(root, "plan");
    const editor = await startEditor(bin, root, dir);
    const key = encodeURIComponent(gadget(N - 1));
    const res = await editor.api("PUT", `/api/cards/thing/${key}`, {
      title: gadget(N - 1),
      body: "MY EDIT\n",
    });
    await editor.kill();
    expect(res.status).toBe(200);
    // The PUT settled the killed import before writing, so the export has nothing left to roll forward.
    await lorecards("export", path.join(dir, "out.json"), "--vault", root);
    expect(fs.readFileSync(path.join(root, "things", `${gadget(N - 1)}.md`), "utf8")).toContain("MY EDIT");
  });

  test("a reader right after a killed import sees the book whole or not at all", async () => {
    const root = newVault("half-read");
    await killedBeforeLastMove(root, "first moved");
    // Every reader settles a killed import first (vault/_settle.ts).
    const first = JSON.parse(await lorecards("read", `thing/${gadget(0)}`, "--vault", root, "--json"));
    const last = JSON.parse(await lorecards("read", `thing/${gadget(N - 1)}`, "--vault", root, "--json"));
    const version = (card: { preamble: string }) =>
      versionIn(card.preamble, card.preamble.split(" v")[0]!, 8);
    expect(version(first)).toBe(version(last));
  });
});
