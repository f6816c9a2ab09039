import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createCard, lockPath, readCard, tryLock, withLock } from "../../src/vault/index.ts";
import { until } from "../support/wait.ts";
import { rejectsWith, tempVault } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const WRITER = path.join(import.meta.dir, "_writer.ts");

async function runWriters(root: string, mode: string, writers: number, count: number): Promise<void> {
  const procs = Array.from({ length: writers }, (_, i) =>
    Bun.spawn([process.execPath, WRITER, root, `w${i}`, String(count), mode], {
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  const codes = await Promise.all(procs.map((p) => p.exited));
  const errors = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
  expect({ codes, errors }).toEqual({ codes: codes.map(() => 0), errors: errors.map(() => "") });
}

function lines(body: string): string[] {
  return body.split("\n").filter((l) => /^w\d+-\d+$/.test(l));
}

describe("the vault lock", () => {
  test.each([
    ["under the lock", "lock"],
    ["with the mtime precondition", "optimistic"],
  ])("two writer processes appending %s lose nothing", async (_name, mode) => {
    vault = tempVault();
    await createCard(vault, { kind: "thing", key: "counter", frontmatter: { title: "counter" }, body: "" });
    await runWriters(vault.root, mode, 2, 40);
    const got = lines(readCard(vault, "thing", "counter").body);
    expect(got).toHaveLength(80);
    for (const id of ["w0", "w1"]) {
      const mine = got.filter((l) => l.startsWith(`${id}-`));
      expect(mine).toEqual(Array.from({ length: 40 }, (_, i) => `${id}-${i}`));
    }
    expect(fs.existsSync(lockPath(vault.root))).toBe(false);
  });

  test("a lock held by a live process makes a writer give up with locked", async () => {
    vault = tempVault();
    await withLock(vault, async () => {
      await rejectsWith("locked", () => withLock(vault, () => 1, { timeoutMs: 100 }));
    });
  });

  test("a lock left by a dead process is broken", async () => {
    vault = tempVault();
    const dead = Bun.spawnSync([process.execPath, "-e", "process.exit(0)"]).pid;
    fs.mkdirSync(path.dirname(lockPath(vault.root)), { recursive: true });
    fs.writeFileSync(lockPath(vault.root), JSON.stringify({ pid: dead, at: Date.now(), token: "x" }));
    // No time to wait at all: the lock is taken on the first try, by breaking the dead one.
    expect(await withLock(vault, () => "got it", { timeoutMs: 0 })).toBe("got it");
  });

  test("a lock older than the stale age is broken even if its pid is alive", async () => {
    vault = tempVault();
    fs.mkdirSync(path.dirname(lockPath(vault.root)), { recursive: true });
    fs.writeFileSync(
      lockPath(vault.root),
      JSON.stringify({ pid: process.pid, at: Date.now() - 60_000, token: "x" }),
    );
    expect(await withLock(vault, () => "got it", { timeoutMs: 2000 })).toBe("got it");
  });

  test("the lock is released when the work throws", async () => {
    vault = tempVault();
    await expect(withLock(vault, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(fs.existsSync(lockPath(vault.root))).toBe(false);
    expect(await withLock(vault, () => 2, { timeoutMs: 200 })).toBe(2);
  });

  test("releasing never removes a lock someone else took after ours was broken", async () => {
    vault = tempVault();
    await withLock(vault, () => {
      fs.writeFileSync(
        lockPath(vault.root),
        JSON.stringify({ pid: process.pid, at: Date.now(), token: "theirs" }),
      );
    });
    expect(fs.readFileSync(lockPath(vault.root), "utf8")).toContain("theirs");
  });
});

describe("a long holder", () => {
  test("keeps its lock fresh: the heartbeat rewrites the lock's time while it is held, so a waiter never breaks it as stale", async () => {
    vault = tempVault();
    const v = vault;
    const at = () => (JSON.parse(fs.readFileSync(lockPath(v.root), "utf8")) as { at: number }).at;
    await withLock(
      v,
      async () => {
        const first = at();
        // Three heartbeats: the lock's time moves on while the holder works, however slow the machine.
        for (let beat = 0, seen = first; beat < 3; beat++) {
          await until(() => at() > seen, "the heartbeat to rewrite the lock's time");
          seen = at();
        }
        // A waiter finds it fresh: it may not take it, and it does not break it.
        await rejectsWith("locked", () => withLock(v, () => "second", { timeoutMs: 0 }));
        expect(at()).toBeGreaterThan(first);
      },
      { staleMs: 200 },
    );
  });

  test("is never taken for stale by its own process: a read that settles leftovers while a busy import holds the lock leaves it and its folder alone", async () => {
    vault = tempVault();
    const v = vault;
    await withLock(v, () => {
      // A holder too busy to beat (a long synchronous step on a loaded machine): the lock's time is old.
      const held = JSON.parse(fs.readFileSync(lockPath(v.root), "utf8")) as { token: string };
      fs.writeFileSync(
        lockPath(v.root),
        JSON.stringify({ pid: process.pid, at: Date.now() - 60_000, token: held.token }),
      );
      expect(tryLock(v.root)).toBeNull();
      expect(fs.readFileSync(lockPath(v.root), "utf8")).toContain(held.token);
    });
    expect(fs.existsSync(lockPath(v.root))).toBe(false);
  });
});
