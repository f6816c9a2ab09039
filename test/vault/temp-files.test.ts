// Temp files of the atomic write (`.<card>.md.<pid>.<hex>.tmp`) left by a process killed mid-write are
// removed by the next write into that folder and by `check`; a live writer's never are.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { writeBackup } from "../../src/backup/index.ts";
import { removeStaleTemps } from "../../src/vault/_temps.ts";
import { createCard, sweepVaultTemps, updateCard } from "../../src/vault/index.ts";
import { tempVault } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

/** A process that has exited: its pid is free. */
const DEAD = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
/** A process that is alive for the whole file, standing in for a writer in another process. */
const live = Bun.spawn([process.execPath, "-e", "await Bun.sleep(60_000)"], { stdout: "ignore" });
afterAll(() => live.kill());

const MIN = 60_000;

function leave(dir: string, name: string, ageMs: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, "half a card");
  const at = new Date(Date.now() - ageMs);
  fs.utimesSync(file, at, at);
  return name;
}

const tmp = (pid: number | string) => `.Alice.md.${pid}.0a1b2c3d.tmp`;

describe("which temp files are stale", () => {
  test.each([
    ["a minute-old temp file whose writer is gone is removed", tmp(DEAD), MIN, true],
    [
      "a second-old temp file whose writer is gone is kept (it may be a writer's on another machine)",
      tmp(DEAD),
      1000,
      false,
    ],
    ["a temp file whose writer is alive is kept", tmp(live.pid), MIN, false],
    [
      "an hour-old temp file is removed even when its pid is alive (a reused pid)",
      tmp(live.pid),
      60 * MIN,
      true,
    ],
    [
      "the marker secret's temp file of a writer that is gone is removed",
      `marker-secret.${DEAD}.0a1b2c3d.tmp`,
      MIN,
      true,
    ],
    ["an editor's swap file is kept", ".Alice.md.swp", 60 * MIN, false],
    ["a card is kept", "Alice.md", 60 * MIN, false],
    ["a name without a pid is kept", ".Alice.md.x.0a1b2c3d.tmp", 60 * MIN, false],
  ])("%s", (_, name, age, removed) => {
    vault = tempVault(false);
    leave(vault.root, name, age);
    removeStaleTemps(vault.root);
    expect(fs.existsSync(path.join(vault.root, name))).toBe(!removed);
  });
});

describe("when they are removed", () => {
  const bob = { kind: "people", key: "Bob", frontmatter: { title: "Bob", keywords: ["Bob"] }, body: "" };

  test("the next card written into the folder removes a killed writer's temp files, not a live one's", async () => {
    vault = tempVault();
    const people = path.join(vault.root, "people");
    const stale = leave(people, tmp(DEAD), MIN);
    const alive = leave(people, tmp(live.pid), MIN);
    const elsewhere = leave(path.join(vault.root, "places"), tmp(DEAD), MIN);
    await createCard(vault, bob);
    expect(fs.readdirSync(people).filter((n) => n.endsWith(".tmp"))).toEqual([alive]);
    expect(stale).not.toBe(alive);
    expect(fs.existsSync(path.join(vault.root, "places", elsewhere))).toBe(true);
  });

  test("an update removes them too", async () => {
    vault = tempVault();
    await createCard(vault, bob);
    const stale = leave(path.join(vault.root, "people"), tmp(DEAD), MIN);
    await updateCard(vault, "people", "Bob", { body: "## who\nBob.\n" });
    expect(fs.existsSync(path.join(vault.root, "people", stale))).toBe(false);
  });

  test("the vault-wide sweep (run by check) covers every kind folder, the root and .lorecards", () => {
    vault = tempVault();
    const dirs = [".", "people", "slang", ".lorecards"];
    for (const d of dirs) leave(path.join(vault.root, d), tmp(DEAD), MIN);
    expect(sweepVaultTemps(vault)).toBe(dirs.length);
    for (const d of dirs) expect(fs.existsSync(path.join(vault.root, d, tmp(DEAD)))).toBe(false);
  });

  describe("what a killed backup leaves in .lorecards/backups", () => {
    /** A killed backup's folder for its databases' copies, with a copy in it, `ageMs` old. */
    function scratch(dir: string, pid: number, ageMs: number): string {
      const name = `.scratch-${pid}-0a1b2c3d`;
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      fs.writeFileSync(path.join(dir, name, "state.db.0a1b2c3d"), "a copy");
      const at = new Date(Date.now() - ageMs);
      fs.utimesSync(path.join(dir, name), at, at);
      return name;
    }

    test("is removed by the next backup and by check's sweep; a live backup's is kept", async () => {
      vault = tempVault();
      const backups = path.join(vault.root, ".lorecards", "backups");
      scratch(backups, DEAD, MIN);
      const alive = scratch(backups, live.pid, MIN);
      leave(backups, `.${DEAD}.0a1b2c3d.tmp`, MIN);
      await writeBackup(vault);
      expect(fs.readdirSync(backups).filter((n) => n.startsWith("."))).toEqual([alive]);
      scratch(backups, DEAD, MIN);
      expect(sweepVaultTemps(vault)).toBe(1);
      expect(fs.readdirSync(backups).filter((n) => n.startsWith("."))).toEqual([alive]);
    });
  });
});
