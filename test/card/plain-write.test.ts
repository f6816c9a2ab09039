// The fast writer of a new card's frontmatter (_plain-write.ts) writes exactly the bytes the YAML
// Document path writes, and the same data to read back, for every card it accepts; it declines the rest,
// which the Document path then writes as before.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { plainFrontmatter } from "../../src/card/_plain-write.ts";
import { parseCard, serializeCard } from "../../src/card/index.ts";
import { newFrontmatter } from "../../src/card/serialize.ts";
import { entriesToDrafts, parseBook } from "../../src/interop/index.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

/** Whether the fast writer took the frontmatter; when it did, its text and data must be the Document's. */
function fastMatchesDocument(frontmatter: Record<string, unknown>): "fast" | "declined" {
  const fast = newFrontmatter(frontmatter);
  if (!fast.fast) return "declined";
  let document: ReturnType<typeof newFrontmatter>;
  try {
    document = newFrontmatter(frontmatter, false);
  } catch (err) {
    throw new Error(`the fast writer wrote what the Document refuses (${(err as Error).message})`);
  }
  expect(fast.yaml).toBe(document.yaml);
  expect(fast.meant).toStrictEqual(document.meant);
  return "fast";
}

// ---- generated new cards --------------------------------------------------------------------------

/** Strings `yaml` quotes one way or another, or writes plain although they look special. */
const TRICKY = [
  ..."yes no on off y True TRUE false null Null NULL ~ 007 08 0 -0 3 -2 +5 1.5 1.0 1. .5 1e3".split(" "),
  ..."1e400 -1.5E-3 .inf -.Inf .NaN 0x1F 0x1g +0x1 0o17 0o8 0b101 1_000 2024-01-01 12:30".split(" "),
  ..."a:b a: C# x#c - -x -- ? ?x : :x [ ] { } {} [] & &a * *a ! !tag !!str | > % %x @ ` ' \"".split(" "),
  ..."\\ a\\b 中文 小明 😀 Ünïcode ... ...x --- ---x __proto__ constructor toString".split(" "),
  ...["a, b", "a，b、c", "Tom & Jerry", "a: b", "x #c", "@@depth 4", "@@activate", "", " ", "  x", "x  "],
  ...["- x", "? x", ": x", "a\u0085b", "a\u2028b", "a\u00a0b", "a\tb", "\t", "a  b", `a${" ".repeat(50)}b`],
  ...["it's", 'say "hi"', `it's "both"`, "'q'", '"q"', "\uFEFF", "a\uFEFFb", "\x00", "\x07\x0b\x1b\x7f"],
  ...["\ud800", "x\udc00", "😀\ud83d", "a\r", "\r"],
  ..."a,b [a] {a} a]b a}b #x a#b".split(" "),
];
const STRING = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,12}$/) },
  { weight: 2, arbitrary: fc.string({ maxLength: 10, unit: "grapheme" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: "binary" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: fc.constantFrom(..." :#,'\"-?[]{}\t\\") }) },
  // Long strings: `yaml` would fold them at its default width; we write with no width.
  {
    weight: 1,
    arbitrary: fc.string({ minLength: 80, maxLength: 300, unit: fc.constantFrom("ab ", "c", " ") }),
  },
);
/** Line breaks, which the fast writer declines: rarer, as one anywhere sends the card to the Document. */
const LINE_BREAK = fc.constantFrom("line\nbreak", "end\n", "\n", "a\n\nb", " \n ", "\r\n", "x\n  y");
const NUMBER = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 0.1, 2 ** 53 + 2, Number.MAX_VALUE, NaN, Infinity, -Infinity),
  fc.double(),
);
const SCALAR = fc.oneof(
  { weight: 5, arbitrary: STRING },
  { weight: 2, arbitrary: NUMBER },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const WORDS = fc.array(STRING, { maxLength: 5 });

/** A foreign value (`st:`, `card:`): scalars, lists, mappings, and what the fast writer declines. */
const FOREIGN: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: SCALAR },
    { weight: 2, arbitrary: fc.array(SCALAR, { maxLength: 4 }) },
    { weight: 2, arbitrary: tie("map") },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: LINE_BREAK },
  ),
  map: fc.dictionary(fc.oneof(STRING, fc.constantFrom("uid", "key", "comment", "extensions")), tie("value"), {
    maxKeys: 4,
  }),
})).value;

const SECONDARY = fc.record({ all: WORDS, any: WORDS, not: WORDS, not_all: WORDS }, { requiredKeys: [] });
const LOREBOOK = fc.record(
  {
    context: fc.constantFrom("automatic", "always", "manual", "never", "Always "),
    case_sensitive: fc.boolean(),
    whole_words: fc.oneof(fc.boolean(), fc.constant(null)),
    regex: fc.boolean(),
    scan_messages: fc.nat(50),
    order: fc.integer({ min: -100, max: 1000 }),
    group: WORDS,
    group_override: fc.boolean(),
    group_weight: fc.oneof(fc.nat(200), fc.double({ min: 0.1, max: 100, noNaN: true })),
    probability: fc.nat(100),
    sticky: fc.nat(10),
    position: fc.constantFrom("before_char", "after_char", "at_depth", "an_top", 0, 4),
    depth: fc.nat(10),
    role: fc.constantFrom("system", "user", "assistant", 1),
    decorators: fc.array(fc.oneof(fc.constantFrom("@@activate", "@@depth 4", "@@@dont_activate"), STRING), {
      maxLength: 3,
    }),
  },
  { requiredKeys: [] },
);
/** A new card's frontmatter as importers, the MCP server and the API draft them, and odder ones. */
const FRONTMATTER = fc
  .tuple(
    fc.record(
      {
        kind: fc.constantFrom("entry", "people", "place"),
        title: fc.oneof({ weight: 9, arbitrary: STRING }, { weight: 1, arbitrary: LINE_BREAK }),
        keywords: WORDS,
        aliases: WORDS,
        refs: WORDS,
        secondary: SECONDARY,
        scan_depth: fc.oneof(fc.nat(20), fc.constant(null)),
        priority: fc.oneof(fc.integer({ min: -5, max: 100 }), STRING),
        enabled: fc.oneof(fc.boolean(), STRING),
        inject: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    LOREBOOK,
    fc.record({ st: FOREIGN, card: FOREIGN }, { requiredKeys: [] }),
    fc.dictionary(STRING, FOREIGN, { maxKeys: 3 }),
    fc.boolean(),
  )
  .map(([card, rules, foreign, odd, shuffle]) => {
    const entries = Object.entries({ ...card, ...rules, ...foreign });
    if (shuffle) entries.reverse();
    const out: Record<string, unknown> = {};
    for (const [k, v] of [...entries, ...Object.entries(odd)]) {
      Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
    }
    return out;
  });

describe("the fast writer writes a new card's frontmatter exactly as the YAML Document does, or declines", () => {
  test("generated new cards", () => {
    const seen = { fast: 0, declined: 0 };
    fc.assert(
      fc.property(FRONTMATTER, (frontmatter) => {
        seen[fastMatchesDocument(frontmatter)] += 1;
      }),
      { numRuns: 3000 },
    );
    // The property holds vacuously if everything declines: enough must have taken the fast path.
    expect(seen.fast).toBeGreaterThan(1300);
  });

  test("generated strings in every place: a value, a root key, a nested key, a list item", () => {
    let fast = 0;
    fc.assert(
      fc.property(STRING, STRING, (s, t) => {
        for (const frontmatter of [{ title: s }, { [s]: 1 }, { st: { [s]: t } }, { keywords: [s, t] }]) {
          if (fastMatchesDocument(frontmatter) === "fast") fast += 1;
        }
      }),
      { numRuns: 3000 },
    );
    expect(fast).toBeGreaterThan(6000);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["plain words", { title: "Alice", keywords: ["Alice", "yes"] }, "title: Alice\nkeywords: [Alice, yes]\n"],
    [
      "nested mappings",
      { st: { uid: 0, extensions: { a: null } } },
      "st:\n  uid: 0\n  extensions:\n    a: null\n",
    ],
    ["an empty mapping and list", { st: {}, keywords: [] }, "st: {}\nkeywords: []\n"],
    ["a mapping without a prototype", { st: Object.assign(Object.create(null), { a: 1 }) }, "st:\n  a: 1\n"],
    [
      "words the core schema reads as no string",
      { title: "true", order: "10", x: "" },
      'title: "true"\norder: "10"\nx: ""\n',
    ],
    [
      "quotes inside, and opening quotes",
      { a: 'say "hi"', b: '"hi" he said', c: "'tis", d: `'a' "b"` },
      `a: say "hi"\nb: '"hi" he said'\nc: "'tis"\nd: "'a' \\"b\\""\n`,
    ],
    ["flow indicators in a list", { keywords: ["a, b", "[x]", "c"] }, 'keywords: ["a, b", "[x]", c]\n'],
    ["control characters", { a: "\x00\x07\x1b\x01" }, 'a: "\\0\\a\\e\\x01"\n'],
    ["a document marker as a root key", { "---x": 1, st: { "---x": 1 } }, '"---x": 1\nst:\n  ---x: 1\n'],
  ])("%s", (_name, frontmatter, yaml) => {
    expect(newFrontmatter(frontmatter)).toMatchObject({ yaml, fast: true });
    expect(fastMatchesDocument(frontmatter)).toBe("fast");
  });

  test.each<[string, Record<string, unknown>]>([
    ["a line break", { title: "two\nlines" }],
    ["a list of mappings", { st: { items: [{ a: 1 }] } }],
    ["a list in a list", { group: [["a"]] }],
    ["a __proto__ key", JSON.parse('{"st": {"__proto__": 1}}')],
    ["a class instance", { date: new Date(0) }],
    [
      "a list of another class",
      { keywords: Object.setPrototypeOf(["a"], class Words extends Array {}.prototype) },
    ],
    ["a hole in a list", { keywords: [undefined, "a"] }],
    ["a key long enough to be explicit", { ["k".repeat(1025)]: 1 }],
  ])("declines %s, which the Document then writes", (_name, frontmatter) => {
    expect(newFrontmatter(frontmatter).fast).toBe(false);
    const text = serializeCard({ frontmatter, body: "x" });
    expect(parseCard(text, { kind: "entry", key: "k" }).body).toBe("x\n");
  });

  test("a cycle declines instead of recursing forever", () => {
    const st: Record<string, unknown> = {};
    st.self = st;
    expect(plainFrontmatter({ title: "A", st })).toBeNull();
  });
});

describe("the cards an import of the real lorebooks writes", () => {
  const have = haveRealFixture("card: the real lorebooks", "st-worldinfo-Eldoria.json");

  test.skipIf(!have)("are written by the fast writer, each with the Document's bytes", async () => {
    const books = fs.readdirSync(REAL_FIXTURES).filter((n) => /\.(json|png)$/.test(n));
    let cards = 0;
    let fast = 0;
    for (const name of books) {
      const book = await parseBook(fs.readFileSync(path.join(REAL_FIXTURES, name)), { filename: name });
      for (const draft of entriesToDrafts(book.entries, { kind: "entry", namespace: book.namespace })) {
        cards += 1;
        if (fastMatchesDocument(draft.frontmatter) === "fast") fast += 1;
        const { yaml } = newFrontmatter(draft.frontmatter, false);
        expect(serializeCard(draft).startsWith(`---\n${yaml}---\n`)).toBe(true);
      }
    }
    expect(cards).toBeGreaterThan(700);
    // Every card these books give is in the shapes the fast writer takes.
    expect(fast).toBe(cards);
  });
});
