/**
 * An import of a book whose entries were written for SillyTavern's budget (a share of the context)
 * says how few of them fit ours: a new user saw one Eldoria entry a turn of the several named, with
 * nothing to say why. The note names the file and the budget that makes room, and following it
 * does; a budget the person chose, or entries that fit, leave it unsaid.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { importIntoBook } from "../../src/interop/index.ts";
import { injectedKeys, openEngine } from "../../src/recall/index.ts";
import { HAVE_REAL, real, tempDir } from "./_support.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const vault = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
const ROOM = /over 400 characters: with the budget of 800, about one goes in a turn/;
const ELDORIA = "st-worldinfo-Eldoria.json";

async function inBudget(root: string, words: string): Promise<string[]> {
  const engine = await openEngine(root, { persist: false });
  try {
    return injectedKeys(await engine.recall([{ role: "user", text: words }]));
  } finally {
    engine.close();
  }
}

describe.skipIf(!HAVE_REAL)("an import of long entries", () => {
  test("into its own new book: the note names the book's settings.yaml, and the budget it gives lets them in", async () => {
    const root = vault();
    const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA });
    expect(r.notes).toContain(
      "4 of its 4 entries that fire on their words are over 400 characters: with the budget of 800, about one " +
        "goes in a turn. `budget: 4000` in books/st-worldinfo-eldoria/settings.yaml makes room for more (docs/CARDS.md, Budget)",
    );
    const words = "Is the glade safe from the beasts?";
    expect(await inBudget(root, words)).toHaveLength(1);
    fs.writeFileSync(path.join(root, "books", "st-worldinfo-eldoria", "settings.yaml"), "budget: 4000\n");
    // Three of the four it names or reaches now (power, reached last, would take it past 4,000).
    expect((await inBudget(root, words)).sort()).toEqual(["eldoria", "glade", "shadowfang"]);
  });

  test("into the vault's own cards: the vault's settings.yaml", async () => {
    const root = vault();
    const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA, book: "main" });
    expect(r.notes.find((n) => ROOM.test(n))).toContain("`budget: 4000` in settings.yaml makes room");
  });

  test.each([["budget: 1200\n"], ["budget_tokens: 300\n"]])(
    "a vault whose settings.yaml chose a budget (%p) hears nothing of room",
    async (settings) => {
      const root = vault();
      fs.writeFileSync(path.join(root, "settings.yaml"), settings);
      const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA });
      expect(r.notes.filter((n) => ROOM.test(n))).toEqual([]);
    },
  );
});

test("a book of short entries hears nothing of room", async () => {
  const root = vault();
  const file = path.resolve(import.meta.dir, "fixtures/kobold-worldinfo.json");
  const r = await importIntoBook(root, new Uint8Array(fs.readFileSync(file)), {
    filename: "kobold-worldinfo.json",
  });
  expect(r.created).toBeGreaterThan(1);
  expect(r.notes.filter((n) => ROOM.test(n))).toEqual([]);
});
