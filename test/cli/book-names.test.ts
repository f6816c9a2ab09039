/**
 * A new card in the vault's own cards, written with no `--book`, whose name a card of a book read
 * beside them by default already answers to: `new entry 凯尔` in a vault whose imported book has 凯尔
 * made a second, empty 凯尔, and every conversation was then sent both. It is refused like any taken
 * name, naming the book and the flags that choose; books not read by default do not count.
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { vaultFiles } from "../support/card-vault.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
let dir = "";
afterEach(() => removeDir(dir));

function run(vault: string, ...args: string[]) {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", vault], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** A vault whose book `sora` holds the card 凯尔 (Kyle in its keys), with `book.yaml` and `extra` as given. */
function vaultWithBook(bookYaml: string, extra = ""): string {
  dir = tempDir();
  const vault = path.join(dir, "v1");
  const book = path.join(vault, "books", "sora");
  fs.mkdirSync(book, { recursive: true });
  fs.writeFileSync(
    path.join(book, "凯尔.md"),
    `---\ntitle: 凯尔\nkeywords: [凯尔]\n${extra}---\nA knight.\n`,
  );
  fs.writeFileSync(path.join(book, "book.yaml"), bookYaml);
  return vault;
}

test.each([
  ["its title", ["new", "entry", "凯尔"]],
  ["its title in another kind", ["new", "people", "凯尔"]],
  ["its key, under another title", ["new", "entry", "Kyle", "--key", "凯尔"]],
])(
  "new with %s of a card in a book read by default is refused, naming the book and the flags, exit 4",
  (_what, args) => {
    const vault = vaultWithBook("title: Sora\n");
    const before = vaultFiles(vault);
    const r = run(vault, ...args);
    expect([r.code, r.stderr]).toEqual([
      4,
      'lorecards: a card named "凯尔" already exists in the book sora (entry/凯尔), read beside these cards by default: --book sora works on it there, --book main makes this one anyway\n',
    ]);
    expect(vaultFiles(vault)).toEqual(before);
  },
);

test.each([
  ["--book main", "title: Sora\n", "", ["--book", "main"]],
  ["a book bound to a character", "characters: [Sora]\n", "", []],
  ["a book read only when asked for", "active: asked\n", "", []],
  ["a disabled card of the book", "title: Sora\n", "enabled: false\n", []],
])("with %s, new makes the card in the vault's own cards", (_what, bookYaml, extra, flags) => {
  const vault = vaultWithBook(bookYaml, extra);
  const r = run(vault, "new", "entry", "凯尔", ...flags);
  expect([r.code, r.stderr]).toEqual([0, ""]);
  expect(fs.existsSync(path.join(vault, "凯尔.md"))).toBe(true);
});
