// The CLI's own writers through the compiled binary (docs/CLI.md, "Writing cards"): `new`, `update`,
// `archive` and `restore` run the same checks as every other writer, answer in --json and with the exit
// codes scripts test, leave every file as it was when they refuse, record each write in the card's
// history as `cli`'s, and take the vault lock, so writers at the same moment lose nothing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

let vault = "";
// A file no one can read, root included (CI runs as root, for whom mode 000 reads fine): a link to itself.
const elsewhere = tempDir();
const unreadable = path.join(elsewhere, "loop.md");
fs.symlinkSync(unreadable, unreadable);
beforeAll(async () => {
  await ensureBinary();
});
afterAll(() => removeDir(elsewhere));
beforeEach(() => {
  vault = makeVault();
});
afterEach(() => removeDir(vault));

const lorecards = (args: string[], stdin?: string) => runBinary([...args, "--vault", vault], { stdin });
const json = async (args: string[], stdin?: string) => {
  const r = await lorecards([...args, "--json"], stdin);
  return { ...r, data: JSON.parse(r.stdout || "null") };
};

describe("lorecards new", () => {
  test("makes a card from flags, which then fires on its words, and says what the checks found", async () => {
    const made = await json([
      "new",
      "people",
      "Marguerite",
      "--keywords",
      "Marguerite, Maggie",
      "--section",
      "who=My neighbour. Keeps bees.",
      "--section",
      "recent=Lent me her ladder; a=b stays text.",
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.data).toEqual({
      status: "created",
      kind: "people",
      key: "Marguerite",
      path: "people/Marguerite.md",
      title: "Marguerite",
      warnings: [],
    });
    expect(fs.readFileSync(path.join(vault, "people", "Marguerite.md"), "utf8")).toBe(
      "---\nkind: people\ntitle: Marguerite\nkeywords: [Marguerite, Maggie]\n---\n## who\nMy neighbour. Keeps bees.\n\n" +
        "## recent\nLent me her ladder; a=b stays text.\n",
    );
    const tried = await json(["try", "I borrowed Maggie's ladder"]);
    expect(tried.data.injected).toEqual(["Marguerite"]);
  });

  test("takes the card's text from stdin, and lists the warnings of the write checks", async () => {
    const made = await json(
      ["new", "slang", "yeet", "--input", "-"],
      "## meaning\nTo throw.\n\n## origin\nThe internet.\n",
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.data.warnings.map((w: { code: string }) => w.code)).toEqual(["no_keywords"]);
    expect(fs.readFileSync(path.join(vault, "slang", "yeet.md"), "utf8")).toContain(
      "## meaning\nTo throw.\n\n## origin\nThe internet.\n",
    );
    const words = await lorecards(["new", "slang", "yoink", "--input", "-"], "## meaning\nTo take.\n");
    expect(words.stdout).toContain("warning no_keywords");
  });

  test.each([
    ["a name already taken", ["new", "people", "Alice"], 4, "conflict", "already exists"],
    [
      "a title that is no file name",
      ["new", "people", "aux.txt"],
      5,
      "invalid_key",
      'pass --key (the file name) instead, for example "aux_.txt"',
    ],
    ["an unknown kind", ["new", "dragons", "Smaug"], 5, "unknown_kind", "unknown kind"],
    [
      "a card that could never fire",
      ["new", "slang", "...", "--key", "dots", "--keywords", "!!!"],
      5,
      "invalid_input",
      "can never fire",
    ],
    [
      "a keyword over 100 characters",
      ["new", "thing", "Pen", "--keywords", "k".repeat(101)],
      5,
      "invalid_input",
      "the limit is 100",
    ],
    [
      "a section without its heading",
      ["new", "thing", "Pen", "--section", "just text"],
      2,
      "usage",
      'takes "heading=text"',
    ],
    [
      "a section that opens another",
      ["new", "thing", "Pen", "--section", "what=a\n## usage\nb"],
      5,
      "invalid_input",
      '"## " heading',
    ],
    [
      "both --section and --input",
      ["new", "thing", "Pen", "--section", "what=a", "--input", "-"],
      2,
      "usage",
      "not both",
    ],
    [
      "a file that is not there",
      ["new", "thing", "Pen", "--input", "/no/such/file.md"],
      3,
      "not_found",
      "/no/such/file.md: no such file",
    ],
    [
      "a file that cannot be read",
      ["new", "thing", "Pen", "--input", unreadable],
      5,
      "invalid_input",
      `${unreadable}: cannot read`,
    ],
  ])("refuses %s with exit %i and changes nothing", async (_name, args, exit, code, detail) => {
    const before = vaultFiles(vault);
    const r = await json(args as string[]);
    expect(r.code).toBe(exit);
    expect(r.data).toMatchObject({ error: code });
    expect(r.data.detail).toContain(detail);
    expect(r.stderr).toContain(detail);
    expect(vaultFiles(vault)).toEqual(before);
  });

  test("refuses a sixth card at priority 2: the cap and its holders are named", async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await lorecards([
        "new",
        "thing",
        `Top ${i}`,
        "--keywords",
        `top card ${i}`,
        "--priority",
        "2",
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    const before = vaultFiles(vault);
    const r = await json(["new", "thing", "Top 6", "--keywords", "top card 6", "--priority", "2"]);
    expect(r.code).toBe(4);
    expect(r.data.detail).toContain("priority 2 or above is capped at 5 cards");
    expect(vaultFiles(vault)).toEqual(before);
  });
});

describe("lorecards update", () => {
  test("replaces one section and keeps every other byte of the file", async () => {
    const file = path.join(vault, "people", "Alice.md");
    const before = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, before.replace("## who\n", "## recent\nIn Lyon.\n\n## who\n"));
    const r = await json(["update", "Alice", "recent", "Moved to Paris in May."]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.data).toMatchObject({ status: "updated", kind: "people", key: "Alice", warnings: [] });
    expect(fs.readFileSync(file, "utf8")).toBe(
      before.replace("## who\n", "## recent\nMoved to Paris in May.\n\n## who\n"),
    );
  });

  test("adds the section when the card has none, and reads the text from stdin", async () => {
    const r = await lorecards(["update", "the blue notebook", "usage", "--input", "-"], "Every morning.\n");
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(vault, "things", "the blue notebook.md"), "utf8")).toBe(
      '---\nkeywords: ["blue notebook"]\n---\n## what\nWhere the plans go.\n\n## usage\nEvery morning.\n',
    );
  });

  test.each([
    ["a card that is not there", ["update", "Nobody", "recent", "x"], 3, "not_found"],
    ["no text at all", ["update", "Alice", "recent"], 2, "usage"],
    ["text twice", ["update", "Alice", "recent", "x", "--input", "-"], 2, "usage"],
    ["a heading inside the text", ["update", "Alice", "recent", "a\n## who\nb"], 5, "invalid_input"],
  ])("refuses %s with exit %i and changes nothing", async (_name, args, exit, code) => {
    const before = vaultFiles(vault);
    const r = await json(args as string[]);
    expect(r.code).toBe(exit);
    expect(r.data).toMatchObject({ error: code });
    expect(vaultFiles(vault)).toEqual(before);
  });
});

describe("lorecards archive and restore", () => {
  test("archive moves a card aside and restore brings it back by the name it had", async () => {
    const file = path.join(vault, "people", "Alice.md");
    const text = fs.readFileSync(file, "utf8");
    const archived = await json(["archive", "Alice"]);
    expect(archived.code, archived.stderr).toBe(0);
    expect(archived.data).toEqual({
      status: "archived",
      kind: "people",
      key: "Alice",
      archived_as: "Alice",
      path: "_archive/people/Alice.md",
    });
    expect(fs.existsSync(file)).toBe(false);
    expect((await json(["try", "Alice called"])).data.injected).toEqual([]);
    const restored = await json(["restore", "Alice"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });

  test("two archived cards of one name ask which one is meant, each named as the question lists it", async () => {
    await lorecards(["archive", "Alice"]);
    await lorecards(["new", "people", "Alice", "--keywords", "alice"]);
    await lorecards(["archive", "Alice"]);
    const both = await json(["restore", "Alice"]);
    expect(both.code).toBe(4);
    expect(both.data.error).toBe("conflict");
    expect(both.data.detail).toContain("people/Alice, people/Alice~2");
    expect((await lorecards(["restore", "people/Alice~2"])).code).toBe(0);
    expect(fs.readFileSync(path.join(vault, "people", "Alice.md"), "utf8")).toContain("keywords: [alice]");
    // The other would come back as Alice too, over a live card: a conflict, and nothing moves.
    expect((await json(["restore", "people/Alice"])).code).toBe(4);
  });

  test("restoring a card nobody archived is not found", async () => {
    expect((await json(["restore", "Nobody"])).data).toMatchObject({ error: "not_found" });
  });
});

describe("what the CLI writes is a write like any other", () => {
  test("every write is a version in the card's history, by cli", async () => {
    await lorecards(["new", "people", "Zed", "--keywords", "zed", "--section", "who=A drummer."]);
    await lorecards(["update", "Zed", "recent", "Joined a band."]);
    await lorecards(["archive", "Zed"]);
    await lorecards(["restore", "Zed"]);
    const h = await json(["history", "Zed"]);
    expect(h.data.versions.map((v: { writer: string; action: string }) => `${v.writer} ${v.action}`)).toEqual(
      ["cli restore", "cli archive", "cli update", "cli create"],
    );
  });

  test("writers at the same moment all land: the vault lock orders them", async () => {
    const sections = ["who", "stance", "recent", "impression"];
    const results = await Promise.all([
      ...sections.map((s) => lorecards(["update", "Alice", s, `Written by the ${s} writer.`])),
      ...[1, 2, 3, 4].map((i) => lorecards(["new", "thing", `Pen ${i}`, "--keywords", `pen ${i}`])),
    ]);
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    const alice = fs.readFileSync(path.join(vault, "people", "Alice.md"), "utf8");
    for (const s of sections) expect(alice).toContain(`## ${s}\nWritten by the ${s} writer.\n`);
    const list = await json(["list", "--kind", "thing"]);
    expect(list.data.cards.map((c: { key: string }) => c.key)).toEqual(
      expect.arrayContaining(["Pen 1", "Pen 2", "Pen 3", "Pen 4"]),
    );
    expect((await json(["history", "Alice"])).data.versions).toHaveLength(4);
  });
});
