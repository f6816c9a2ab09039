// A book's own settings belong to its cards (card spec §8.1): read by the import as the spec says.
import { describe, expect, test } from "bun:test";
import { parseBook } from "../../src/interop/index.ts";

const entry = (extra: Record<string, unknown> = {}) => ({
  keys: ["harbor"],
  content: "The harbor.",
  enabled: true,
  insertion_order: 1,
  extensions: {},
  ...extra,
});

const card = (data: Record<string, unknown>, book: Record<string, unknown> = {}, entries = [entry()]) => ({
  spec: "chara_card_v3",
  spec_version: "3.0",
  data: { name: "Mira Vell", first_mes: "", character_book: { entries, extensions: {}, ...book }, ...data },
});

describe("what a book says for its cards and its vault", () => {
  test.each([
    ["a V3 card's nickname is the name {{char}} stands for", card({ nickname: "Mira" }), "Mira"],
    ["without a nickname, its name", card({}), "Mira Vell"],
    ["an empty nickname is no nickname", card({ nickname: " " }), "Mira Vell"],
  ])("%s", async (_name, json, character) => {
    expect((await parseBook(json, { filename: "c.json" })).character).toBe(character);
  });

  test("the book's scan depth is the window of each entry that has none of its own", async () => {
    const json = card({}, { scan_depth: 4 }, [entry(), entry({ extensions: { scan_depth: 1 } })]);
    const book = await parseBook(json, { filename: "c.json" });
    expect(book.entries.map((e) => e.rules.scan_messages)).toEqual([4, 1]);
  });

  test("recursive_scanning false stops each entry's text reaching others, unless the entry says prevent_recursion: false", async () => {
    const json = card({}, { recursive_scanning: false }, [
      entry(),
      entry({ extensions: { prevent_recursion: false } }),
      entry({ extensions: { prevent_recursion: true } }),
    ]);
    const book = await parseBook(json, { filename: "c.json" });
    expect(book.entries.map((e) => e.rules.prevent_recursion)).toEqual([true, undefined, true]);
  });
});
