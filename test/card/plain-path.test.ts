// The fast path (Bun's YAML parser on frontmatter in simple shapes, _plain-yaml.ts) reads every card it
// accepts exactly as the full path (gray-matter + `yaml` nodes) does, and declines the rest.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { cardFile, generateCards } from "../../bench/_gen.ts";
import { cardMeta, serializeCard } from "../../src/card/index.ts";
import { type ParseOptions, parseFullCard, parsePlainCard } from "../../src/card/parse.ts";
import { entriesToDrafts, parseBook } from "../../src/interop/index.ts";

const OPTS: ParseOptions = { kind: "people", key: "the-card", path: "people/the-card.md", mtime: "1" };

/** Whether the fast path took the text; when it did, its card must be the full path's (which must not throw). */
function plainMatchesFull(text: string): "plain" | "declined" {
  const plain = parsePlainCard(text, OPTS);
  if (plain === null) return "declined";
  let full: ReturnType<typeof parseFullCard>;
  try {
    full = parseFullCard(text, OPTS);
  } catch (err) {
    throw new Error(`the fast path read a card the full path refuses (${(err as Error).message}):\n${text}`);
  }
  expect(plain).toStrictEqual(full);
  expect(cardMeta(plain)).toStrictEqual(cardMeta(full));
  return "plain";
}

// ---- frontmatter texts in the accepted shapes and just outside them -------------------------------

/** Words the two parsers could read apart: YAML 1.1/1.2 keywords, numbers, indicators, odd characters. */
const TRICKY = [
  ..."yes no on off y True TRUE false null Null ~ 007 08 0 -0 3 -2 +5 1.5 1.0 1.".split(" "),
  ...".5 1e3 1e400 -1.5E-3 .inf -.Inf .NaN 0x1F +0x1 -0o7 0o17 0b101 1_000".split(" "),
  ..."2024-01-01 12:30 a:b a: C# x#c - -x ? : [ ] { } {} [] &a *a !tag !!str | > %".split(" "),
  ..."` ' \" \\ a\\b 中文 小明 😀 Ünïcode ... --- __proto__ constructor toString".split(" "),
  ...["a, b", "a，b、c", "Tom & Jerry", "a: b", "x #c", "@@depth 4", "@@activate", "", " "],
  ...["- x", "? x", ": x", "a\u0085b", "a\u2028b", "a\u00a0b", "a\tb", "a  b", `a${" ".repeat(50)}b`],
];
const WORD = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,12}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: "grapheme" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: "binary" }) },
);
/** A word written plain, double-quoted (JSON's escapes or YAML's own) or single-quoted. */
const SCALAR = fc.oneof(
  { weight: 3, arbitrary: WORD },
  { weight: 2, arbitrary: WORD.map((w) => JSON.stringify(w)) },
  { weight: 1, arbitrary: WORD.map((w) => `'${w.replaceAll("'", "''")}'`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('"\\x41\\u00e9\\N\\_\\e"', '"\\U0001F600"', '"a\\/b"', '"\\q"', '"\\x4"'),
  },
);
const SPACE = fc.constantFrom("", " ", "  ");
const COMMENT = fc.constantFrom("", "", "", " # note", "  #x", "#glued", "          # aligned");
const FLOW = fc
  .tuple(fc.array(SCALAR, { maxLength: 4 }), SPACE, fc.boolean())
  .map(([items, sp, nested]) => `[${sp}${items.join(`${sp},${sp}`)}${nested ? ", [x]" : ""}${sp}]`);

const INDENT = fc.constantFrom("", " ", "  ", "    ");
const blockList = (indent: string) =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.oneof(SCALAR, FLOW, fc.constant("")), COMMENT), { minLength: 1, maxLength: 4 }),
      INDENT,
    )
    .map(([items, extra]) =>
      items.map(([v, c]) => `${indent}${extra}-${v === "" ? "" : " "}${v}${c}`).join("\n"),
    );
const blockText = (indent: string) =>
  fc
    .tuple(
      fc.constantFrom("|", "|-", "|+", ">", ">-", "|2"),
      fc.array(fc.oneof(WORD, fc.constant("")), { minLength: 0, maxLength: 3 }),
      fc.constantFrom("  ", "   ", " "),
    )
    .map(([head, lines, more]) => [head, ...lines.map((l) => (l === "" ? "" : `${indent}${more}${l}`))]);
const KEYS = [
  "title",
  "keywords",
  "aliases",
  "secondary",
  "refs",
  "priority",
  "enabled",
  "inject",
  "scan_depth",
  "kind",
  "context",
  "order",
  "group",
  "probability",
  "position",
  "depth",
  "role",
  "sticky",
  "case_sensitive",
  "decorators",
  "st",
  "note",
  "x-y",
  "_z",
  "True",
  "null",
  "yes",
  "1",
  "__proto__",
  '"title"',
  "all",
  "any",
];
const KEY = fc.constantFrom(...KEYS);

/** One `key: value` entry, with its nested lines, at `indent`. */
function entry(indent: string, depth: number): fc.Arbitrary<string> {
  const value: fc.Arbitrary<string> = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(SCALAR, COMMENT).map(([v, c]) => ` ${v}${c}`) },
    { weight: 3, arbitrary: fc.tuple(FLOW, COMMENT).map(([v, c]) => ` ${v}${c}`) },
    { weight: 1, arbitrary: COMMENT.map((c) => c) },
    { weight: 2, arbitrary: fc.tuple(COMMENT, blockList(indent)).map(([c, l]) => `${c}\n${l}`) },
    {
      weight: 1,
      arbitrary: blockText(indent).map(([h, ...ls]) => ` ${h}${ls.length ? "\n" : ""}${ls.join("\n")}`),
    },
    {
      weight: depth < 2 ? 2 : 0,
      arbitrary: fc
        .tuple(
          INDENT.filter((i) => i !== ""),
          fc.array(fc.constant(0), { minLength: 1, maxLength: 3 }),
        )
        .chain(([more, n]) => fc.tuple(...n.map(() => entry(`${indent}${more}`, depth + 1))))
        .map((lines) => `\n${lines.join("\n")}`),
    },
  );
  // Inside a mapping, secondary's parts come up often, repeated too (each pair is read, not just the last).
  const key = depth === 0 ? KEY : fc.oneof(KEY, fc.constantFrom("all", "any", "not", "not_all"));
  return fc.tuple(key, value).map(([k, v]) => `${indent}${k}:${v}`);
}

const SECONDARY = fc
  .array(entry("  ", 1), { minLength: 1, maxLength: 4 })
  .map((parts) => `secondary:\n${parts.join("\n")}`);

const FRONTMATTER = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: entry("", 0) },
      { weight: 1, arbitrary: SECONDARY },
      { weight: 1, arbitrary: fc.constantFrom("", "# c", "  # c") },
    ),
    { maxLength: 7 },
  )
  .map((lines) => lines.join("\n"));

/** A near miss: one character inserted or one line's indentation changed. */
const NEAR = fc
  .tuple(
    FRONTMATTER,
    fc.nat(),
    fc.constantFrom(" ", "\t", "-", ":", "#", "&", "*", "!", "\n", "'", '"', "[", "\r"),
    fc.boolean(),
  )
  .map(([fm, at, ch, indentOnly]) => {
    if (fm === "") return ch;
    if (indentOnly) {
      const lines = fm.split("\n");
      const i = at % lines.length;
      lines[i] = ` ${lines[i]}`;
      return lines.join("\n");
    }
    const i = at % fm.length;
    return fm.slice(0, i) + ch + fm.slice(i);
  });

const BODY = fc.constantFrom("", "## who\nsomeone\n", "Intro.\n\n## who\nA\n## secret\nB\n", "no newline");
const TEXT = fc
  .tuple(
    fc.oneof({ weight: 3, arbitrary: FRONTMATTER }, { weight: 2, arbitrary: NEAR }),
    BODY,
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom("", "", "", "yaml", " "),
  )
  .map(([fm, body, bom, crlf, lang]) => {
    const text = `${bom ? "\uFEFF" : ""}---${lang}\n${fm}\n---\n${body}`;
    return crlf ? text.replaceAll("\n", "\r\n") : text;
  });

describe("the fast path reads a card exactly as the full path does, or declines it", () => {
  test("random frontmatter in the accepted shapes and near them", () => {
    const seen = { plain: 0, declined: 0 };
    fc.assert(
      fc.property(TEXT, (text) => {
        seen[plainMatchesFull(text)] += 1;
      }),
      { numRuns: 4000 },
    );
    // The property holds vacuously if everything declines: enough must have taken the fast path.
    expect(seen.plain).toBeGreaterThan(300);
  });

  test("every card fixture", () => {
    const dir = path.join(import.meta.dir, "..", "fixtures", "cards");
    const names = fs.readdirSync(dir).filter((n) => n.endsWith(".md"));
    expect(names.length).toBeGreaterThan(5);
    const taken = names.filter(
      (n) => plainMatchesFull(fs.readFileSync(path.join(dir, n), "utf8")) === "plain",
    );
    // The simple ones take the fast path; aliases, flow mappings and `---js` do not.
    expect(taken).toEqual(expect.arrayContaining(["alice.md", "crlf-bom.md", "forgiving.md", "unclosed.md"]));
    expect(taken).not.toContain("alias-bomb.md");
    expect(taken).not.toContain("js-frontmatter.md");
  });

  test("every card written by importing the real lorebooks", async () => {
    const dir = path.join(import.meta.dir, "..", "..", "..", "shared", "fixtures", "real");
    const books = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => /\.(json|png)$/.test(n)) : [];
    let cards = 0;
    let plain = 0;
    for (const name of books) {
      let book: Awaited<ReturnType<typeof parseBook>>;
      try {
        book = await parseBook(fs.readFileSync(path.join(dir, name)), { filename: name });
      } catch {
        continue; // not a lorebook (a client transcript)
      }
      for (const draft of entriesToDrafts(book.entries, { kind: "entry", namespace: book.namespace })) {
        cards += 1;
        if (plainMatchesFull(serializeCard(draft)) === "plain") plain += 1;
      }
    }
    // Every card our importer writes takes the fast path: indexing an imported book stays fast.
    expect(plain).toBe(cards);
  });
});

describe("typical cards take the fast path", () => {
  test("every generated bench card", () => {
    for (const c of generateCards(500)) {
      const text = cardFile(c);
      expect(parsePlainCard(text, OPTS)).not.toBeNull();
      expect(plainMatchesFull(text)).toBe("plain");
    }
  });

  test.each([
    [
      "block lists and comments",
      "# Alice\ntitle: Alice   # quoted\nkeywords:\n  - Alice\n  - 'payments team'\naliases:\n- Al\n",
    ],
    [
      "every card field",
      "kind: people\ntitle: Alice\nkeywords: Alice, Bob\naliases: []\nsecondary:\n  all: [x]\n  not:\n    - y\nscan_depth: 3\nrefs: [Bob]\npriority: 1\nenabled: yes\ninject: true\n",
    ],
    [
      "lorebook fields",
      'context: always\norder: 100\ngroup: [lords]\nprobability: 50\nposition: at_depth\ndepth: 4\nrole: system\ndecorators: ["@@depth 4", "@@activate"]\n',
    ],
    [
      "a nested foreign mapping and a text block",
      'st:\n  uid: 3\n  extensions:\n    role: 0\n    automation_id: ""\n  memo: {}\nnote: |-\n  two\n  lines\n',
    ],
    ["unicode words", "title: 王小明\nkeywords: [小明, 王小明, 😀 fan]\n"],
  ])("%s", (_name, frontmatter) => {
    for (const text of [
      `---\n${frontmatter}---\n## who\nA\n`,
      `\uFEFF---\r\n${frontmatter.replaceAll("\n", "\r\n")}---\r\nA\r\n`,
    ]) {
      expect(plainMatchesFull(text)).toBe("plain");
    }
  });
});

test("a card read by the fast path loads neither gray-matter nor yaml (the hook's cold start)", () => {
  const script = `
    const { parseCard } = await import(${JSON.stringify(path.join(import.meta.dir, "../../src/card/index.ts"))});
    parseCard("---\\ntitle: Alice\\nkeywords: [Alice]\\n---\\n## who\\nA\\n", { kind: "people", key: "Alice" });
    const loaded = Object.keys(require.cache).filter((k) => /node_modules[\\\\/](yaml|gray-matter)[\\\\/]/.test(k));
    console.log(loaded.length);`;
  const run = Bun.spawnSync([process.execPath, "-e", script], { stderr: "inherit" });
  expect(run.stdout.toString().trim()).toBe("0");
});

describe("the fast path declines what it cannot read the same way", () => {
  test.each([
    ["a number where the written text is kept", "title: 007\n"],
    ["a boolean inside a word list", "keywords: [Alice, true]\n"],
    ["an anchor and an alias", "a: &x [1]\nb: *x\n"],
    ["a tag", "title: !!str 5\n"],
    ["a duplicate key", "title: A\ntitle: B\n"],
    ["a duplicate nested key", "secondary:\n  all: [a]\n  all: [b]\n"],
    ["a flow mapping", "st: {depth: 4}\n"],
    ["a multi-line flow list", "keywords: [a,\n  b]\n"],
    ["a key YAML reads as null", "null: x\n"],
    ["a signed hexadecimal number", "order: +0x1\n"],
    ["a tab", "title:\tA\n"],
    ["a list as the whole frontmatter", "- a\n- b\n"],
    ["a language after the fence", null],
  ])("%s", (_name, frontmatter) => {
    const text = frontmatter === null ? "---yaml\ntitle: A\n---\n" : `---\n${frontmatter}---\nA\n`;
    expect(plainMatchesFull(text)).toBe("declined");
  });
});
