import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultKinds, parseCard, publicText, publicTextOf } from "../../src/card/index.ts";

const dir = join(import.meta.dir, "../fixtures/cards");
const kinds = defaultKinds();
const fixtures = readdirSync(dir).filter((f) => f.endsWith(".md"));

const crafted: [string, string][] = [
  ["no frontmatter", "## who\nplain\n"],
  ["unclosed frontmatter", "---\ntitle: x\n## who\nstill body\n"],
  ["empty frontmatter", "---\n---\n## who\nbody\n"],
  ["CRLF and BOM", "\uFEFF---\r\ntitle: a\r\n---\r\n## who\r\nline\r\n\r\n## correspondence\r\nsecret\r\n"],
  ["private section in the middle", "---\nkeywords: [a]\n---\nintro\n## correspondence\nno\n## who\nyes\n"],
];

describe("the public text read without parsing YAML equals the parsed card's", () => {
  test.each(fixtures)("fixture %s", (name) => {
    const text = readFileSync(join(dir, name), "utf8");
    let parsed: string;
    try {
      parsed = publicText(parseCard(text, { kind: "people", key: "x", kinds }));
    } catch {
      return; // an unparseable card never fires, so it is never rendered
    }
    expect(publicTextOf(text, kinds)).toBe(parsed);
  });

  test.each(crafted)("%s", (_name, text) => {
    expect(publicTextOf(text, kinds)).toBe(publicText(parseCard(text, { kind: "people", key: "x", kinds })));
  });
});
