import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { defaultKinds, parseCard, parseKindsConfig, publicText } from "../../src/card/index.ts";
import { LoreError } from "../../src/errors.ts";
import { expectLinear } from "../support/growth.ts";

const FIXTURES = path.join(import.meta.dir, "..", "fixtures", "cards");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");
const people = (text: string, key = "Alice") =>
  parseCard(text, { kind: "people", key, path: `people/${key}.md` });
const card = (frontmatter: string, body = "## who\nsomeone\n") =>
  people(`---\n${frontmatter}\n---\n${body}`, "the-file");

function parseError(fn: () => unknown): LoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LoreError);
    expect((err as LoreError).code).toBe("parse_error");
    return err as LoreError;
  }
  throw new Error("expected a parse_error");
}

describe("alice.md, an example card with every field", () => {
  test("every documented field is read from the frontmatter", () => {
    const c = people(fixture("alice.md"));
    expect(c).toMatchObject({
      key: "Alice",
      kind: "people",
      path: "people/Alice.md",
      title: "Alice",
      keywords: ["Alice", "payments team"],
      aliases: ["Al"],
      secondary: { all: [], any: [], not: ["Alice Cooper"] },
      scanDepth: 3,
      refs: ["Bob"],
      priority: 1,
      enabled: true,
      inject: true,
      warnings: [],
    });
  });

  test("the body splits into the kind's sections in file order", () => {
    const c = people(fixture("alice.md"));
    expect(c.preamble).toBe("");
    expect(c.sections.map((s) => s.heading)).toEqual(["who", "stance", "recent", "impression"]);
    expect(c.sections[2]).toEqual({
      heading: "recent",
      text: "Took over the refund flow rewrite in September.\n\n",
      private: false,
    });
  });

  test("the first line skips headings and the public length counts the whole public text", () => {
    const c = people(fixture("alice.md"));
    expect(c.firstLine).toBe("Alice — works on the payments team, sits two desks away.");
    expect(c.publicChars).toBe(publicText(c).length);
    expect(publicText(c)).toBe(c.body);
  });
});

describe("forgiving frontmatter", () => {
  test.each([
    ["a comma-separated line works like a list", "keywords: Alice, Bob", "keywords", ["Alice", "Bob"]],
    ["Chinese list separators split too", "keywords: 小明、小红，老王", "keywords", ["小明", "小红", "老王"]],
    [
      "spaces around items are trimmed and empties dropped",
      "aliases: ' Al , , Ally '",
      "aliases",
      ["Al", "Ally"],
    ],
    ["a single word is a one-item list", "refs: Bob", "refs", ["Bob"]],
    ["duplicates are dropped", "keywords: [Alice, Alice, Bob]", "keywords", ["Alice", "Bob"]],
    [
      "keywords stay the strings the user wrote",
      "keywords: [yes, no, 2024, 1.0, 007, on]",
      "keywords",
      ["yes", "no", "2024", "1.0", "007", "on"],
    ],
    ["a bare number keyword stays a string", "keywords: 2024", "keywords", ["2024"]],
    ["an empty list field is empty", "keywords:", "keywords", []],
    ["a list holding a mapping falls back to empty", "keywords: [{a: 1}]", "keywords", []],
    [
      "secondary accepts a string or a list per condition",
      "secondary: {all: 'deploy, Friday', not: [Cooper]}",
      "secondary",
      { all: ["deploy", "Friday"], any: [], not: ["Cooper"], notAll: [] },
    ],
    [
      "a malformed secondary falls back to no conditions",
      "secondary: 5",
      "secondary",
      { all: [], any: [], not: [], notAll: [] },
    ],
    ["a missing title is the file name", "keywords: [x]", "title", "the-file"],
    ["an empty title is the file name", "title: ''", "title", "the-file"],
    ["a numeric title stays as written", "title: 2046", "title", "2046"],
    ["a mapping as title falls back to the file name", "title: {a: 1}", "title", "the-file"],
    ["scan_depth takes a whole number", "scan_depth: 0", "scanDepth", 0],
    ["scan_depth written as text is read", "scan_depth: '2'", "scanDepth", 2],
    ["scan_depth null means the caller's", "scan_depth: null", "scanDepth", null],
    ["a negative scan_depth falls back", "scan_depth: -1", "scanDepth", null],
    ["a fractional scan_depth falls back", "scan_depth: 1.5", "scanDepth", null],
    ["priority takes any number", "priority: -2.5", "priority", -2.5],
    ["priority written as text is read", "priority: '3'", "priority", 3],
    ["a malformed priority falls back to 0", "priority: high", "priority", 0],
    ["a list priority falls back to 0", "priority: [1]", "priority", 0],
  ])("%s", (_name, yaml, field, expected) => {
    expect((card(yaml) as unknown as Record<string, unknown>)[field]).toEqual(expected);
  });

  test.each([
    ["priority: high", "priority"],
    ["secondary: 5", "secondary"],
    ["scan_depth: -1", "scan_depth"],
    ["enabled: maybe", "enabled"],
    ["keywords: [{a: 1}]", "keywords"],
    ["secondary: {some: x}", "secondary.some"],
    ["title: [a, b]", "title"],
  ])("a malformed value (%s) leaves a warning naming the field", (yaml, name) => {
    const c = card(yaml);
    expect(c.warnings.length).toBe(1);
    expect(c.warnings[0]).toContain(name);
  });

  test("a card full of malformed values still parses, with defaults and warnings", () => {
    const c = parseCard(fixture("forgiving.md"), { kind: "people", key: "Bob" });
    expect(c).toMatchObject({
      title: "Bob",
      keywords: ["Bob", "Robert", "the new intern"],
      aliases: ["小鲍", "鲍勃"],
      priority: 0,
      secondary: { all: [], any: [], not: [], notAll: [] },
      scanDepth: null,
      enabled: true,
      inject: false,
    });
    expect(c.warnings).toHaveLength(4);
    expect(c.frontmatter.st).toEqual({ depth: 4, position: "before_char" });
  });
});

describe("boolean fields accept the YAML 1.1 spellings people type", () => {
  test.each([
    ["yes", true],
    ["Yes", true],
    ["on", true],
    ["ON", true],
    ["y", true],
    ["true", true],
    ["'true'", true],
    ["no", false],
    ["No", false],
    ["off", false],
    ["n", false],
    ["false", false],
    ["0", false],
    ["1", true],
    ["", true],
    ["null", true],
    ["maybe", true],
  ])("enabled: %s reads as %p", (value, expected) => {
    expect(card(`enabled: ${value}`).enabled).toBe(expected);
    expect(card(`inject: ${value}`).inject).toBe(expected);
  });

  test("the same spellings stay strings in unknown keys", () => {
    expect(card("mood: yes\nflag: true").frontmatter).toEqual({ mood: "yes", flag: true });
  });
});

describe("safe parsing", () => {
  test("CRLF line endings and a BOM are normalised", () => {
    const text = fixture("crlf-bom.md");
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const c = parseCard(text, { kind: "people", key: "Carol" });
    expect(c.title).toBe("Carol");
    expect(c.keywords).toEqual(["Carol", "the lab"]);
    expect(c.enabled).toBe(true);
    expect(c.body).toBe("## who\nCarol runs the lab.\n\n## recent\nBack from leave.\n");
    expect(c.body).not.toContain("\r");
  });

  test("an unclosed --- keeps the whole text as the body", () => {
    const text = fixture("unclosed.md");
    const c = parseCard(text, { kind: "people", key: "Half" });
    expect(c.body).toBe(text);
    expect(c.title).toBe("Half");
    expect(c.keywords).toEqual([]);
    expect(c.warnings).toEqual(["frontmatter never closed"]);
    expect(c.sections.map((s) => s.heading)).toEqual(["who"]);
  });

  test.each(["---js", "---javascript", "---coffee", "---JS", "---json", "---toml"])(
    "%s frontmatter is refused and never executed",
    (opener) => {
      const text = fixture("js-frontmatter.md").replace("---js", opener);
      const err = parseError(() => people(text));
      expect(err.message).toContain("refused");
      expect((globalThis as Record<string, unknown>).__lorecardsPwned).toBeUndefined();
    },
  );

  test("an alias bomb is refused", () => {
    const err = parseError(() => people(fixture("alias-bomb.md")));
    expect(err.message).toMatch(/alias/i);
  });

  test("refusing an alias bomb costs time linear in its text, never in what it would expand to", async () => {
    // Level n repeats level n-1 nine times: 9^n nodes once expanded, n lines as written.
    const bomb = (levels: number) => {
      const lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < levels; i++)
        lines.push(
          `l${i}: &l${i} [${Array(9)
            .fill(`*l${i - 1}`)
            .join(",")}]`,
        );
      return `---\n${lines.join("\n")}\ntitle: bomb\n---\n## who\nlaughs\n`;
    };
    expect(parseError(() => people(bomb(4))).message).toMatch(/alias/i);
    await expectLinear((levels) => parseError(() => people(bomb(levels))), 4, 64);
  });

  test.each([
    ["invalid YAML", "title: [unclosed"],
    ["a list instead of a mapping", "- a\n- b"],
    ["a bare scalar", "just text"],
  ])("%s is a parse_error naming the file", (_name, yaml) => {
    const err = parseError(() => card(yaml));
    expect(err.message).toContain("people/the-file.md");
  });

  test("duplicate keys do not break the card; the last one wins", () => {
    expect(card("title: A\ntitle: B").title).toBe("B");
  });

  test("a file with no frontmatter is all body", () => {
    const c = people("## who\nJust text.\n");
    expect(c.frontmatter).toEqual({});
    expect(c.title).toBe("Alice");
    expect(c.sections).toHaveLength(1);
  });

  test("a frontmatter of comments only is empty", () => {
    expect(people("---\n# nothing yet\n---\nbody\n").frontmatter).toEqual({});
  });
});

describe("sections", () => {
  test("headings outside the kind's table are kept verbatim, and the preamble too", () => {
    const c = parseCard(fixture("penpal.md"), { kind: "people", key: "Alice" });
    expect(c.preamble).toBe("Met through the reading group.\n\n");
    expect(c.sections.map((s) => [s.heading, s.private])).toEqual([
      ["who", false],
      ["Correspondence", true],
      ["hobbies", false],
    ]);
    expect(c.preamble + c.sections.map((s) => `## ${s.heading}\n${s.text}`).join("")).toBe(c.body);
  });

  test("private sections (any case) are left out of the public text", () => {
    const c = parseCard(fixture("penpal.md"), { kind: "people", key: "Alice" });
    const pub = publicText(c);
    expect(pub).not.toContain("Last letter");
    expect(pub).not.toContain("Correspondence");
    expect(pub).toContain("Bouldering on Tuesdays.");
    expect(c.publicChars).toBe(pub.length);
    expect(c.frontmatter.ais).toEqual([
      { name: "Aria", emails: ["aria@example.com", "aria.work@example.com"] },
    ]);
  });

  test("kinds.yaml private_sections replaces the default list", () => {
    const kinds = parseKindsConfig("private_sections: [hobbies]");
    const c = parseCard(fixture("penpal.md"), { kind: "people", key: "Alice", kinds });
    expect(c.sections.filter((s) => s.private).map((s) => s.heading)).toEqual(["hobbies"]);
    expect(publicText(c)).toContain("Last letter");
  });

  test("a ## line inside a fenced code block is not a section", () => {
    const c = parseCard(fixture("fenced.md"), { kind: "entry", key: "snippets", kinds: defaultKinds() });
    expect(c.sections.map((s) => s.heading)).toEqual(["usage"]);
    expect(c.preamble).toContain("## not a heading");
    expect(c.firstLine).toBe("Intro line.");
  });

  test("### subheadings stay inside their section", () => {
    const c = people("## who\nA\n### detail\nB\n## recent\nC\n");
    expect(c.sections.map((s) => s.heading)).toEqual(["who", "recent"]);
    expect(c.sections[0]!.text).toBe("A\n### detail\nB\n");
  });
});

describe("outsized frontmatter", () => {
  const many = Array.from({ length: 50_000 }, (_, i) => `word${i}`);
  test.each([
    ["keywords as a YAML list", `keywords: [${many.join(", ")}]`, "keywords"],
    ["keywords on one comma-separated line", `keywords: ${many.join(", ")}`, "keywords"],
    ["aliases", `aliases: [${many.join(", ")}]`, "aliases"],
    ["secondary.any", `secondary:\n  any: [${many.join(", ")}]`, "secondary.any"],
    ["refs", `refs: [${many.join(", ")}]`, "refs"],
  ])("50,000 %s parse, the first 1,000 kept and the rest reported", (_name, line, field) => {
    const c = card(`title: Big\n${line}`);
    const kept = field === "secondary.any" ? c.secondary.any : c[field as "keywords" | "aliases" | "refs"];
    expect(kept).toEqual(many.slice(0, 1000));
    expect(c.warnings).toContain(`${field} has 50,000 words; only the first 1,000 are used`);
  });

  test.each([
    ["a YAML list", (words: string[]) => `keywords: [${words.join(", ")}]`],
    ["a comma-separated line", (words: string[]) => `keywords: ${words.join(", ")}`],
  ])("a word list written as %s parses in time linear in its length", async (_name, line) => {
    await expectLinear((n) => card(`title: Big\n${line(many.slice(0, n))}`), 2_500, 50_000);
  });

  test("repeated words count once toward the 1,000", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i % 1000}`);
    const c = card(`keywords: [${words.join(", ")}]`);
    expect(c.keywords.length).toBe(1000);
    expect(c.warnings).toEqual([]);
  });

  test.each([
    ["title", `title: ${"t".repeat(201)}`, "title is 201 characters long; the limit is 200"],
    [
      "keywords",
      `keywords: [ok, ${"k".repeat(101)}]`,
      "keywords[1] is 101 characters long; the limit is 100",
    ],
  ])("an over-long %s still works and is reported", (_name, line, warning) => {
    expect(card(line).warnings).toContain(warning);
  });
});
