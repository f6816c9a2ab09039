// A full disk is the disk's fault, said as such: an SQLite write that found no room answered
// `500 internal "database or disk is full"`, and `history` on a full disk called history.db damaged
// (and promised to move it aside). Every surface now answers io_error, in words that name the disk.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { errorCodeOf } from "../../src/errors.ts";
import { loreErrorResponse } from "../../src/http/index.ts";
import { toolError } from "../../src/mcp/_result.ts";
import { CARDS, cardText } from "../support/vault.ts";

/** A real "database or disk is full" from SQLite: a database allowed one page more than it has. */
function diskFullError(): unknown {
  const db = new Database(":memory:");
  try {
    db.run("CREATE TABLE t (x TEXT)");
    const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.run(`PRAGMA max_page_count = ${pages + 1}`);
    for (let i = 0; i < 100; i++) db.run("INSERT INTO t VALUES (?)", ["x".repeat(4096)]);
  } catch (err) {
    return err;
  } finally {
    db.close();
  }
  throw new Error("SQLite found room");
}

describe("a full disk", () => {
  test("is io_error on every surface, with SQLite's words", async () => {
    const err = diskFullError();
    expect(String((err as Error).message)).toContain("database or disk is full");
    expect(errorCodeOf(err)).toBe("io_error");
    const res = loreErrorResponse(err);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "io_error", detail: "database or disk is full" });
    expect(toolError(err).content).toEqual([{ type: "text", text: "io_error: database or disk is full" }]);
  });

  test.each([
    ["ENOSPC", "no space left on device"],
    ["EROFS", "read-only file system"],
    ["EDQUOT", "disk quota exceeded"],
  ])("%s from the file system is io_error too", (code, message) => {
    expect(errorCodeOf(Object.assign(new Error(message), { code }))).toBe("io_error");
  });

  test("a bug is still internal", () => {
    expect(errorCodeOf(new TypeError("x is not a function"))).toBe("internal");
  });
});

// A real full disk: a 1 MiB tmpfs, where the machine lets this process mount one (root on Linux).
const MOUNT = fs.mkdtempSync(path.join(os.tmpdir(), "lc-full-"));
const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", MOUNT]).exitCode === 0;
const BUN = path.resolve("node_modules/.bin/bun");

describe.skipIf(!mounted)("on a disk that filled up after cards were written (tmpfs)", () => {
  const vault = path.join(MOUNT, "vault");
  beforeAll(async () => {
    for (const card of CARDS) {
      fs.mkdirSync(path.join(vault, card.dir), { recursive: true });
      fs.writeFileSync(path.join(vault, card.dir, `${card.key}.md`), cardText(card));
    }
    const r = Bun.spawnSync([
      BUN,
      "src/main.ts",
      "update",
      "Alice",
      "who",
      "Moved to Nice.",
      "--vault",
      vault,
    ]);
    expect(r.exitCode).toBe(0);
    // Fill what is left.
    const fd = fs.openSync(path.join(MOUNT, "filler"), "w");
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024));
    } catch {
      // ENOSPC: full
    } finally {
      fs.closeSync(fd);
    }
  });
  afterAll(() => {
    Bun.spawnSync(["umount", MOUNT]);
    fs.rmSync(MOUNT, { recursive: true, force: true });
  });

  test("history says the disk is full, not that history.db is damaged", () => {
    const r = Bun.spawnSync([BUN, "src/main.ts", "history", "Alice", "--json", "--vault", vault]);
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).not.toContain("moves it aside");
    expect(out).not.toContain("internal");
    if (r.exitCode === 0)
      expect(JSON.parse(r.stdout.toString())).toMatchObject({ versions: expect.any(Array) });
    else expect(JSON.parse(r.stdout.toString())).toMatchObject({ error: "io_error" });
  });
});

if (!mounted) fs.rmSync(MOUNT, { recursive: true, force: true });
