// The one frontmatter path (src/card/_frontmatter.ts) splits a card as gray-matter does, judged by
// gray-matter itself with `yaml` as its only engine: the same data and the same body for every fixture
// card and for the edge shapes the split has to agree on. (The program no longer loads gray-matter to
// read a card; the measurements why are in the module's comment.)
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { parse } from "yaml";
import { normalizeText, readFrontmatter, readPlainFrontmatter } from "../../src/card/_frontmatter.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/cards");

/** What gray-matter reads of a text, normalised as the program normalises it, `yaml` its only engine. */
function judged(text: string) {
  const file = matter(normalizeText(text), {
    engines: { yaml: { parse: (src: string) => parse(src, { schema: "core", uniqueKeys: false }) ?? {} } },
  } as Parameters<typeof matter>[1]);
  return { data: { ...file.data }, body: file.content };
}

const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".md"))
  // gray-matter would run `---js` frontmatter as code and expand an alias bomb: those two are ours to refuse.
  .filter((name) => !["js-frontmatter.md", "alias-bomb.md"].includes(name));

const shapes: [string, string][] = [
  ["an empty block", "---\n---\nbody\n"],
  ["a block of comments only", "---\n# nothing here\n---\nbody\n"],
  ["a language named after the fence", "---yaml\nkeywords: [a]\n---\nbody\n"],
  ["a closing fence with more on its line", "---\na: 1\n--- tail\nbody\n"],
  ["no blank line after the fence", "---\na: 1\n---body\n"],
  ["CRLF line endings and a BOM", "\uFEFF---\r\na: 1\r\n---\r\nbody\r\n"],
  ["no frontmatter", "just a body\n"],
  ["four dashes: no frontmatter", "----\na: 1\n----\nbody\n"],
];

describe("the frontmatter split agrees with gray-matter", () => {
  test.each(fixtures)("fixture %s", (name) => {
    const text = readFileSync(join(FIXTURES, name), "utf8");
    const read = readFrontmatter(text);
    if (!read.hasFrontmatter) return expect(read.body).toBe(normalizeText(text));
    expect({ data: read.data, body: read.body }).toEqual(judged(text));
  });

  test.each(shapes)("%s", (_name, text) => {
    const read = readFrontmatter(text);
    expect({ data: read.data, body: read.body }).toEqual(judged(text));
    const plain = readPlainFrontmatter(text);
    if (plain) expect({ data: plain.data, body: plain.body }).toEqual(judged(text));
  });

  test("an unclosed fence is where they part: gray-matter swallows the file, we keep it as body", () => {
    const text = "---\ntitle: the rest of the card\n";
    expect(judged(text).body).toBe("");
    expect(readFrontmatter(text)).toMatchObject({ hasFrontmatter: false, body: text });
  });

  test("a YAML error names the file's own line, as gray-matter's block does", () => {
    expect(() => readFrontmatter("---\na: 1\nb: [\n---\nbody\n")).toThrow(/line 3/);
  });
});
