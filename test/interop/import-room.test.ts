/**
 * An import of a book whose entries were written for SillyTavern's budget (a share of the context)
 * gives a new book the budget they need: with ours of 800 characters, new users saw one entry a turn
 * of the several they named (Eldoria; 1 of 8 in a 761-entry Chinese book), and the advice an earlier
 * import gave was one more thing to do before the defaults worked. A book or vault that has settings
 * or cards already is the person's: it gets the advice instead. A budget the person chose, or entries
 * that fit, leave it unsaid.
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
const ROOM = /over 400 characters, so with the default budget of 800 about one would go in a turn/;
const WHY =
  "4 of its 4 entries that fire on their words are over 400 characters, so with the default budget of 800 " +
  "about one would go in a turn; 4000 has room for about four";
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
  test("into its own new book: the budget that lets them in is written to its settings.yaml", async () => {
    const root = vault();
    const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA });
    const file = "books/st-worldinfo-eldoria/settings.yaml";
    expect(r.notes).toContain(`${WHY}: written to ${file} as budget: 4000`);
    expect(fs.readFileSync(path.join(root, file), "utf8")).toContain(
      `budget: 4000                 # ${WHY}\n`,
    );
    // Three of the four it names or reaches (power, reached last, would take it past 4,000); one of
    // them with the default budget.
    const words = "Is the glade safe from the beasts?";
    expect((await inBudget(root, words)).sort()).toEqual(["eldoria", "glade", "shadowfang"]);
    fs.rmSync(path.join(root, file));
    expect(await inBudget(root, words)).toHaveLength(1);
  });

  test("into a fresh vault's own cards: the vault's settings.yaml", async () => {
    const root = vault();
    const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA, book: "main" });
    expect(r.notes).toContain(`${WHY}: written to settings.yaml as budget: 4000`);
    expect(fs.readFileSync(path.join(root, "settings.yaml"), "utf8")).toContain("budget: 4000 ");
  });

  test("into a vault with cards of its own: advice, and its settings.yaml is not made", async () => {
    const root = vault();
    fs.mkdirSync(path.join(root, "people"));
    fs.writeFileSync(path.join(root, "people", "Ann.md"), "---\nkeywords: [Ann]\n---\nAnn is here.\n");
    const r = await importIntoBook(root, real(ELDORIA), { filename: ELDORIA, book: "main" });
    expect(r.notes).toContain(`${WHY}: to follow it, set budget: 4000 in settings.yaml`);
    expect(fs.existsSync(path.join(root, "settings.yaml"))).toBe(false);
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
