// Imports of books with outsized entries: every entry still becomes a card (titles and keywords cut to
// the card limits, the cut reported), quickly, and the originals go back out on export.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { keyProblem } from "../../src/card/index.ts";
import { entriesToDrafts, exportBook, importBook, parseBook } from "../../src/interop/index.ts";
import { loadIndex, openVault, type Vault } from "../../src/vault/index.ts";
import { expectLinear } from "../support/growth.ts";
import { json, tempDir } from "./_support.ts";

type Raw = Record<string, unknown>;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** An empty vault: no example cards, so the index holds only what the import made. */
function newVault(): Vault {
  const root = path.join(tempDir(), "vault");
  dirs.push(path.dirname(root));
  fs.mkdirSync(root);
  return openVault(root);
}

function stBook(entries: Raw[]): Raw {
  return { entries: Object.fromEntries(entries.map((e, uid) => [String(uid), { uid, content: "c", ...e }])) };
}

function cardBook(entries: Raw[]): Raw {
  return {
    spec: "chara_card_v2",
    spec_version: "2.0",
    data: {
      name: "Someone",
      character_book: { entries: entries.map((e, id) => ({ id, content: "c", enabled: true, ...e })) },
    },
  };
}

async function exported(vault: Vault): Promise<Raw[]> {
  const out = json((await exportBook(vault, "st")).bytes) as { entries: Record<string, Raw> };
  return Object.values(out.entries);
}

describe("one odd title never refuses a book", () => {
  test.each([
    ["a device name with an extension", "aux.txt"],
    ["a right-to-left override", "invoice\u202etxt.exe"],
    ["a device name and 300 more letters", `con.${"x".repeat(300)}`],
  ])("a World Info book with an entry titled with %s imports every entry", async (_name, comment) => {
    const vault = newVault();
    const book = stBook([
      { key: ["harbor"], comment: "harbor" },
      { key: ["odd"], comment },
      { key: ["odd"], comment },
      { key: ["lantern"], comment: "lantern" },
    ]);
    const result = await importBook(vault, book, { filename: "book.json" });
    expect(result).toMatchObject({ created: 4, skipped: [] });
    const { cards, broken } = loadIndex(vault);
    expect(broken).toEqual([]);
    expect(cards.map((c) => keyProblem(c.key))).toEqual([null, null, null, null]);
  });
});

describe("outsized entries", () => {
  const long = `The ${"very ".repeat(6000)}long title`;

  test.each([
    ["a World Info book", stBook([{ key: ["harbor"], comment: long }]), "comment"],
    ["a character card's book", cardBook([{ keys: ["harbor"], comment: long }]), "comment"],
  ])("in %s, a 30,000-character title imports, cut to 200 characters", async (_name, book) => {
    const vault = newVault();
    const result = await importBook(vault, book, { filename: "book.json" });
    expect(result.created).toBe(1);
    expect(result.warnings.join("\n")).toContain("200 characters");
    const [card] = loadIndex(vault).cards;
    expect(card!.title).toBe(long.slice(0, 200).trim());
    expect(keyProblem(card!.key)).toBeNull();
  });

  test("a cut title goes back out whole on export while the card is unchanged", async () => {
    const vault = newVault();
    await importBook(vault, stBook([{ key: ["harbor"], comment: long }]), { filename: "book.json" });
    expect((await exported(vault))[0]!.comment).toBe(long);
  });

  test("reading an outsized title or key list into a card costs time linear in its size", async () => {
    // What an import does before it writes: the book read, each entry mapped and cut to a card.
    const drafts = async (book: Raw) => {
      const parsed = await parseBook(book, { filename: "b.json" });
      return entriesToDrafts(parsed.entries, { kind: "entry", namespace: parsed.namespace });
    };
    const title = (words: number) => `The ${"very ".repeat(words)}long title`;
    await expectLinear(
      (words) => drafts(stBook([{ key: ["harbor"], comment: title(words) }])),
      1_000,
      30_000,
    );
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `key ${i}`);
    await expectLinear((n) => drafts(stBook([{ key: keys(n), comment: "many" }])), 2_500, 50_000);
  });

  test("an entry with 50,000 keys imports with the first 1,000, and exports them all", async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `key ${i}`);
    const vault = newVault();
    const result = await importBook(vault, stBook([{ key: keys, comment: "many" }]), {
      filename: "book.json",
    });
    expect(result.warnings.join("\n")).toContain("1,000");
    expect(loadIndex(vault).cards[0]!.keywords).toEqual(keys.slice(0, 1000));
    expect((await exported(vault))[0]!.key).toEqual(keys);
  });

  test("a 300-character keyword is cut to 100 characters", async () => {
    const vault = newVault();
    const word = "w".repeat(300);
    const result = await importBook(vault, stBook([{ key: [word, "short"], comment: "t" }]), {
      filename: "book.json",
    });
    expect(result.warnings.join("\n")).toContain("100 characters");
    expect(loadIndex(vault).cards[0]!.keywords).toEqual(["w".repeat(100), "short"]);
  });
});
