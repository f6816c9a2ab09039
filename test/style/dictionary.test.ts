// The dictionary as data: the built-in file is clean and broad; the vault's file is checked, never fatal.
import { describe, expect, test } from "bun:test";
import { builtInEntries, builtInReader } from "../../src/style/built-in.ts";
import { mergeDictionaries, readDictionary } from "../../src/style/dictionary.ts";
import data from "../../src/style/dictionary.yaml";
import { styleFold } from "../../src/style/fold.ts";
import { dictionaryReader, readMessage } from "../../src/style/sightings.ts";

describe("the built-in dictionary", () => {
  const entries = builtInEntries();

  test("reads without a problem and spells no folded term twice", () => {
    expect(entries.length).toBeGreaterThan(500);
    const folded = entries.map((e) => styleFold(e.term));
    expect(new Set(folded).size).toBe(folded.length);
  });

  test("covers English and Chinese slang, emoji, emoticons and the five dialects", () => {
    const has = (kind: string, locale: string) =>
      entries.filter((e) => e.kind === kind && e.locale === locale).length;
    expect(has("slang", "en")).toBeGreaterThan(50);
    expect(has("slang", "zh")).toBeGreaterThan(50);
    expect(has("catchphrase", "en")).toBeGreaterThan(20);
    expect(has("catchphrase", "zh")).toBeGreaterThan(20);
    expect(has("emoji", "any")).toBeGreaterThan(20);
    expect(has("emoticon", "any")).toBeGreaterThan(20);
    for (const d of ["zh-sichuan", "zh-cantonese", "zh-northeast", "zh-shanghai", "zh-minnan"])
      expect(has("dialect", d)).toBeGreaterThanOrEqual(20);
  });

  test("slang stays out of legal, medical and serious replies", () => {
    for (const e of entries.filter(
      (x) => x.kind === "slang" || x.kind === "laughter" || x.kind === "emoticon",
    )) {
      expect(e.avoidWhen).toEqual(expect.arrayContaining(["legal", "medical", "serious"]));
    }
  });

  test("what the bundle carries is dictionary.yaml as it is now, its scanner the same as one built now", () => {
    expect(builtInEntries()).toEqual(readDictionary(data, "dictionary", "dictionary.yaml").entries);
    const built = dictionaryReader(entries);
    const texts = [
      "ngl this slaps fr 😭 haha",
      "巴适得板，要得！！我们去阿拉伯",
      "sure :) see http://x.y ~/bin ...",
    ];
    for (const t of texts) expect(readMessage(t, builtInReader())).toEqual(readMessage(t, built));
  });

  test("every blocker contains the term it keeps apart", () => {
    for (const e of entries) for (const n of e.not ?? []) expect(n).toContain(e.term);
  });
});

describe("reading a dictionary file", () => {
  test("a flat list, a mapping of term: gloss, and defaults by kind", () => {
    const read = readDictionary(
      {
        entries: [
          "tiny but mighty",
          { term: "搞快点", kind: "dialect", locale: "zh-sichuan" },
          { term: 2333, kind: "laughter", more: "3" },
        ],
        groups: [{ kind: "catchphrase", locale: "en", entries: { "ship it": "release", "on it": null } }],
        ignore: ["lol"],
      },
      "user",
      "style-dictionary.yaml",
    );
    expect(read.problems).toEqual([]);
    expect(read.ignore).toEqual(["lol"]);
    expect(read.entries.map((e) => [e.term, e.kind, e.locale, e.note ?? null])).toEqual([
      ["ship it", "catchphrase", "en", "release"],
      ["on it", "catchphrase", "en", null],
      ["tiny but mighty", "idiolect", "en", null],
      ["搞快点", "dialect", "zh-sichuan", null],
      ["2333", "laughter", "any", null],
    ]);
    expect(read.entries[2]!.avoidWhen).toEqual(["formal", "legal", "medical"]);
  });

  test.each([
    [{ entries: [{}] }, "entry 1: an entry has no `term:`; skipped"],
    [{ entries: [["x"]] }, "entry 1: an entry must be a term or a mapping with `term:`; skipped"],
    [{ entries: [{ term: "x", kind: "mood" }] }, 'entry 1: "x": kind must be one of slang, abbreviation'],
    [{ entries: [{ term: "x", locale: "English!" }] }, 'entry 1: "x": locale must look like "en"'],
    [
      { entries: [{ term: "x", avoid_when: ["church"] }] },
      'entry 1: "x": avoid_when has "church"; the tags are',
    ],
    [{ entries: [{ term: "x", use_when: "casual" }] }, 'entry 1: "x": use_when must be a list of'],
    [{ entries: [{ term: "x", colour: "red" }] }, 'entry 1: "x": unknown field `colour`'],
    [{ entries: [{ term: "x".repeat(41) }] }, "a term is one line of at most 40 characters"],
    [{ entries: [{ term: "a\nb" }] }, "a term is one line"],
    [
      { entries: [{ term: "阿拉", not: ["伊拉克"] }] },
      "not must list longer spellings that contain the term",
    ],
    [{ entries: [{ term: "x", note: 3 }] }, 'entry 1: "x": note must be text'],
    [{ entries: "lol" }, "entries: must be a list or a mapping"],
    [{ ignore: "lol" }, "ignore: must be a list of terms"],
    [{ words: [] }, "unknown key `words` ignored"],
    [["lol"], "the file must be a mapping with `entries:`"],
  ])("%j: %s", (data, problem) => {
    const read = readDictionary(data, "user", "style-dictionary.yaml");
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]).toStartWith("style-dictionary.yaml: ");
    expect(read.problems[0]).toContain(problem);
  });

  test("a bad entry is skipped, the good ones kept", () => {
    const read = readDictionary({ entries: ["ok then", { term: "" }, "fine by me"] }, "user", "f");
    expect(read.entries.map((e) => e.term)).toEqual(["ok then", "fine by me"]);
    expect(read.problems).toHaveLength(1);
  });
});

describe("merging the vault's file into the built-in dictionary", () => {
  const builtIn = builtInEntries();
  const user = (data: unknown) => readDictionary(data, "user", "f");

  test("a vault entry replaces the built-in one with the same folded term", () => {
    const merged = mergeDictionaries(
      builtIn,
      user({ entries: [{ term: "LOL", kind: "idiolect", note: "ours" }] }),
      "f",
    );
    const lol = merged.entries.filter((e) => styleFold(e.term) === "lol");
    expect(lol).toHaveLength(1);
    expect(lol[0]).toMatchObject({ term: "LOL", kind: "idiolect", note: "ours", source: "user" });
  });

  test("an ignored term is no longer noticed", () => {
    const merged = mergeDictionaries(builtIn, user({ ignore: ["lol", "😭"] }), "f");
    expect(merged.entries.some((e) => e.term === "lol" || e.term === "😭")).toBe(false);
    expect(merged.entries).toHaveLength(builtIn.length - 2);
  });

  test("a term given twice in the vault's file keeps its first entry, and says so", () => {
    const merged = mergeDictionaries(builtIn, user({ entries: ["our motto", "Our Motto"] }), "f");
    expect(merged.entries.filter((e) => e.term.toLowerCase() === "our motto")).toHaveLength(1);
    expect(merged.problems).toEqual(['f: "Our Motto" is given twice; the first entry is used']);
  });
});
