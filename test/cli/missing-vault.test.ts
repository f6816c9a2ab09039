/**
 * A command pointed at a folder that is not there: exit 3, and a message that says any folder will do
 * before it names `init`, whose example cards (Alice, the Friday deploy) would fire beside a book
 * imported next. A new user who follows the message with mkdir gets the book's cards and nothing else.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const BOOK = path.resolve(import.meta.dir, "../interop/fixtures/kobold-worldinfo.json");
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

const cardFiles = (root: string) =>
  fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && !f.startsWith(".lorecards"));

test("an import into a folder that is not there says mkdir first, then init, and exits 3", () => {
  const vault = path.join(dir, "book-vault");
  const r = run("import", BOOK, "--vault", vault);
  expect(r.code).toBe(3);
  expect(r.stderr).toBe(
    `lorecards: no vault at ${vault} (any folder will do: mkdir it; \`lorecards init ${vault}\` adds example cards)\n`,
  );
  expect(fs.existsSync(vault)).toBe(false);
});

test("after mkdir, the same import gives the book's cards and no example card", () => {
  const vault = path.join(dir, "made-vault");
  fs.mkdirSync(vault);
  const r = run("import", BOOK, "--vault", vault);
  expect(r.code).toBe(0);
  const files = cardFiles(vault);
  expect(files.length).toBeGreaterThan(0);
  expect(files.filter((f) => /Alice|deploy/i.test(f))).toEqual([]);
});
