/**
 * `backup --to DIR` writes only into a folder that is there. Made for the user instead, a backup to a
 * drive that is not mounted (docs/OPERATIONS.md's own `--to /mnt/usb/lorecards`) filled the disk the
 * mount point sits on and reported success. The daily backup of a timer takes the same rule.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const vault = path.join(dir, "vault");
fs.mkdirSync(path.join(vault, "people"), { recursive: true });
fs.writeFileSync(path.join(vault, "people", "Ann.md"), "---\nkeywords: [Ann]\n---\nAnn is here.\n");

function run(...args: string[]) {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", vault], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

test.each([
  ["a backup", []],
  ["the daily backup", ["--daily"]],
])("%s to a folder that is not there is refused by name, exit 3, and nothing is made", (_name, extra) => {
  const missing = path.join(dir, "usb-not-mounted", "lorecards");
  const r = run("backup", "--to", missing, ...extra);
  expect(r.code).toBe(3);
  expect(r.stderr).toBe(
    `lorecards: the folder ${missing} does not exist; make it first (mkdir -p ${missing})\n`,
  );
  expect(fs.existsSync(path.dirname(missing))).toBe(false);
});

test("a file named as the folder is bad input, exit 5", () => {
  const file = path.join(dir, "a-file");
  fs.writeFileSync(file, "x");
  const r = run("backup", "--to", file);
  expect(r.code).toBe(5);
  expect(r.stderr).toBe(`lorecards: ${file} is not a folder\n`);
});

test("a folder that is there gets the backup, as before", () => {
  const there = path.join(dir, "backups-here");
  fs.mkdirSync(there);
  const r = run("backup", "--to", there, "--json");
  expect(r.code).toBe(0);
  const made = JSON.parse(r.stdout) as { file: string; files: number };
  expect(path.dirname(made.file)).toBe(there);
  expect(fs.readdirSync(there)).toEqual([path.basename(made.file)]);
});
