/**
 * Every import goes into a book of its own, so the one-card commands, which work on the vault's own
 * cards unless told `--book`, found none of an imported book's cards and said nothing of where they
 * were. A card that a book holds is now named in the error with the flag that finds it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const BOOK = path.resolve(import.meta.dir, "../interop/fixtures/kobold-worldinfo.json");
const dir = tempDir();
const vault = path.join(dir, "vault");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", vault], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

beforeAll(() => {
  fs.mkdirSync(vault);
  expect(run("import", BOOK).code).toBe(0);
});

test.each([
  ["read", ["read", "Harbor"]],
  ["update", ["update", "Harbor", "notes", "Busy at dawn."]],
  ["history", ["history", "Harbor"]],
  ["archive", ["archive", "Harbor"]],
  ["revert", ["revert", "Harbor", "--version", "1"]],
])(
  "%s of a card only a book holds names the book and the flag, exit 3, and writes nothing",
  (_name, args) => {
    const before = fs.readFileSync(path.join(vault, "books", "kobold-worldinfo", "Harbor.md"), "utf8");
    const r = run(...args);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'lorecards: no card named "Harbor" (the book kobold-worldinfo has one: --book kobold-worldinfo)\n',
    );
    expect(fs.readFileSync(path.join(vault, "books", "kobold-worldinfo", "Harbor.md"), "utf8")).toBe(before);
  },
);

test("with the flag it names, the card is found", () => {
  const r = run("read", "Harbor", "--book", "kobold-worldinfo");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Harbor");
});

test("a name no book holds either gets the plain message", () => {
  expect(run("read", "Nowhere").stderr).toBe('lorecards: no card named "Nowhere"\n');
});

test.each([
  ["read", ["read", "books/kobold-worldinfo/Harbor"]],
  ["update", ["update", "books/kobold-worldinfo/Harbor", "notes", "Busy at dawn."]],
])(
  "%s of a card by its path into a book is refused, naming the book, the card's name there and the flag",
  (_name, args) => {
    const file = path.join(vault, "books", "kobold-worldinfo", "Harbor.md");
    const before = fs.readFileSync(file, "utf8");
    const r = run(...args);
    expect([r.code, r.stderr]).toEqual([
      3,
      'lorecards: no card named "books/kobold-worldinfo/Harbor" (the book kobold-worldinfo has it as "Harbor": --book kobold-worldinfo)\n',
    ]);
    expect(fs.readFileSync(file, "utf8")).toBe(before);
  },
);
