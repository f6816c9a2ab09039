// `kill -9` of the compiled binary while it indexes a fresh vault (index.db is written in batches):
// the next process finds a usable index and finishes it, and every card on disk is listed and found,
// as if the first run had never happened. The vault is large enough for a keeper (vault/keeper.ts): the
// one the later processes start is stopped by its pid.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { keeperPid, stopKeeper } from "../support/keeper.ts";
import { until } from "../support/wait.ts";

let bin = "";
let dir = "";
beforeAll(async () => {
  bin = await ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-index-kill-"));
});
afterAll(async () => {
  await stopKeeper(path.join(dir, "v"));
  fs.rmSync(dir, { recursive: true, force: true });
});

const PER_FOLDER = 3000;
const FOLDERS = ["people", "places"];

/** A vault of 6,000 small cards, two folders of 3,000 (more than one write batch each). */
function bigVault(name: string): string {
  const root = path.join(dir, name);
  for (const folder of FOLDERS) {
    fs.mkdirSync(path.join(root, folder), { recursive: true });
    for (let i = 0; i < PER_FOLDER; i++) {
      const title = `${folder} card ${i}`;
      fs.writeFileSync(
        path.join(root, folder, `${title}.md`),
        `---\ntitle: ${title}\nkeywords: [token${folder}${i}z]\n---\nA card of the bench.\n`,
      );
    }
  }
  return root;
}

/** Rows in index.db, read as another process would (0 while it does not exist yet). */
function rowsIn(root: string): number {
  const file = path.join(root, ".lorecards", "index.db");
  if (!fs.existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true });
    try {
      return (db.query("SELECT count(*) AS n FROM cards").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // being created right now
  }
}

describe("an indexer killed part way", () => {
  test("leaves an index the next process uses and completes", async () => {
    const root = bigVault("v");
    const first = Bun.spawn([bin, "try", "token", "--vault", root, "--json"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await until(() => rowsIn(root) > 0 || first.exitCode !== null, "the first rows to be written");
    first.kill(9);
    await first.exited;
    const partial = rowsIn(root);
    expect(partial).toBeLessThan(FOLDERS.length * PER_FOLDER);

    const listed = await runBinary(["list", "--vault", root, "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).cards).toHaveLength(FOLDERS.length * PER_FOLDER);
    for (const [folder, i] of [
      ["people", 0],
      ["people", PER_FOLDER - 1],
      ["places", 0],
      ["places", PER_FOLDER - 1],
    ]) {
      const tried = await runBinary(["try", `tell me about token${folder}${i}z`, "--vault", root, "--json"]);
      expect(JSON.parse(tried.stdout).fired.map((f: { title: string }) => f.title)).toEqual([
        `${folder} card ${i}`,
      ]);
    }
    expect(rowsIn(root)).toBe(FOLDERS.length * PER_FOLDER);
    // A try that compared every file of this large vault itself started its keeper.
    await until(() => keeperPid(root) !== undefined, "the keeper the tries started");
  });
});
