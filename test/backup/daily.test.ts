// The daily backup of a long-running server, under a clock the test moves: one backup a day, never
// more, the seven newest daily ones kept, the backups a person made never deleted, and a failure said
// in one line without stopping anything. Real vaults, real archives; only the clock is the test's.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createDailyBackups, dailyBackups, parseBackupName, readBackup } from "../../src/backup/index.ts";
import type { TempVault } from "../support/card-vault.ts";
import { backupVault } from "./_helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2025, 2, 14, 2, 15, 0);

let vault: TempVault;
afterEach(() => vault.remove());

function daily(clock: { now: number }, lines: string[] = [], dir?: string) {
  return createDailyBackups({ root: vault.root, dir, now: () => clock.now, say: (l) => lines.push(l) });
}

function dir(): string {
  return path.join(vault.root, ".lorecards", "backups");
}

const names = () => dailyBackups(dir()).map((b) => path.basename(b.file));

describe("daily backups", () => {
  test("the first check makes one, and no other is made until 23 hours have passed", async () => {
    vault = backupVault();
    const clock = { now: START };
    const d = daily(clock);
    expect((await d.check())?.file).toBe(path.join(dir(), "daily-20250314T021500Z.tar.gz"));
    for (const hours of [1, 12, 22.9]) {
      clock.now = START + hours * HOUR;
      expect(await d.check()).toBeNull();
    }
    clock.now = START + 23 * HOUR;
    expect((await d.check())?.file).toBe(path.join(dir(), "daily-20250315T011500Z.tar.gz"));
    expect(names()).toHaveLength(2);
  });

  test("ten days on, the seven newest daily backups are left, and the ones a person made are kept", async () => {
    vault = backupVault();
    fs.mkdirSync(dir(), { recursive: true });
    const mine = ["backup-20250101T000000Z.tar.gz", "before-restore-20250102T000000Z.tar.gz", "notes.txt"];
    for (const name of mine) fs.writeFileSync(path.join(dir(), name), "kept");
    const clock = { now: START };
    const d = daily(clock);
    for (let day = 0; day < 10; day++) {
      clock.now = START + day * DAY;
      expect(await d.check()).not.toBeNull();
      clock.now += 2 * HOUR;
      expect(await d.check()).toBeNull();
    }
    const days = names().map((n) => new Date(parseBackupName(n)!.at).toISOString().slice(0, 10));
    expect(days).toEqual([
      "2025-03-23",
      "2025-03-22",
      "2025-03-21",
      "2025-03-20",
      "2025-03-19",
      "2025-03-18",
      "2025-03-17",
    ]);
    for (const name of mine) expect(fs.readFileSync(path.join(dir(), name), "utf8")).toBe("kept");
  });

  test("a daily backup is a whole backup: its manifest vouches for every card", async () => {
    vault = backupVault();
    const made = await daily({ now: START }).check();
    const { manifest, files } = await readBackup(made!.file);
    expect(manifest.kind).toBe("daily");
    expect(manifest.created).toBe("2025-03-14T02:15:00.000Z");
    expect([...files.keys()]).toContain("people/Alice.md");
  });

  test("a failed backup is one warning line, and the next check tries again", async () => {
    vault = backupVault();
    const clock = { now: START };
    const lines: string[] = [];
    const blocked = path.join(vault.root, "blocked");
    fs.writeFileSync(blocked, "a file where the backup folder should be");
    expect(await daily(clock, lines, blocked).check()).toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(
      "lorecards: warning: the daily backup failed (cannot create the backup folder",
    );
    fs.rmSync(blocked);
    clock.now += HOUR;
    expect(await daily(clock, lines, blocked).check()).not.toBeNull();
    expect(lines[1]).toStartWith("lorecards: daily backup ");
  });

  test("two checks at once make one backup", async () => {
    vault = backupVault();
    const d = daily({ now: START });
    const [a, b] = await Promise.all([d.check(), d.check()]);
    expect(a).toBe(b);
    expect(names()).toHaveLength(1);
  });
});
