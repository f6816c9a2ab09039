import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { parseCard, replaceSection, serializeCard, updateCardText } from "../../src/card/index.ts";
import type { LoreError } from "../../src/errors.ts";

const FIXTURES = path.join(import.meta.dir, "..", "fixtures", "cards");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");
const parse = (text: string) => parseCard(text, { kind: "people", key: "Alice" });

describe("serializing a new card", () => {
  test("a draft round-trips through parseCard", () => {
    const draft = {
      frontmatter: {
        kind: "people",
        title: "Alice",
        keywords: ["Alice", "yes"],
        secondary: { not: ["Cooper"] },
        priority: 2,
      },
      body: "## who\nAlice.\n",
    };
    const text = serializeCard(draft);
    expect(text).toBe(
      "---\nkind: people\ntitle: Alice\nkeywords: [Alice, yes]\nsecondary:\n  not: [Cooper]\npriority: 2\n---\n## who\nAlice.\n",
    );
    const c = parse(text);
    expect(c.keywords).toEqual(["Alice", "yes"]);
    expect(c.priority).toBe(2);
    expect(c.body).toBe(draft.body);
  });

  test("unknown keys are written as they are", () => {
    const st = { depth: 4, position: "before_char", extensions: { weight: 10 } };
    const c = parse(serializeCard({ frontmatter: { title: "A", st }, body: "x" }));
    expect(c.frontmatter.st).toEqual(st);
    expect(c.body).toBe("x\n");
  });

  test("lorebook fields are written together in their table order, after the card's own fields", () => {
    const frontmatter = {
      decorators: ["@@activate"],
      title: "Alice",
      probability: 50,
      st: { uid: 3 },
      keywords: ["Alice"],
      context: "always",
      group: ["lords"],
    };
    const text = serializeCard({ frontmatter, body: "x" });
    expect(text).toBe(
      "---\ntitle: Alice\nst:\n  uid: 3\nkeywords: [Alice]\ncontext: always\ngroup: [lords]\nprobability: 50\n" +
        'decorators: ["@@activate"]\n---\nx\n',
    );
    // The lorebook fields' order is the table's, whatever order the draft was built in.
    const reversed = Object.fromEntries(Object.entries(frontmatter).reverse());
    expect(serializeCard({ frontmatter: reversed, body: "x" })).toContain(
      "context: always\ngroup: [lords]\nprobability: 50\ndecorators:",
    );
    expect(parse(text).rules?.policy).toBe("always");
  });

  test("an empty frontmatter still closes, so the body is never read as frontmatter", () => {
    const text = serializeCard({ frontmatter: {}, body: "---\nnot: frontmatter\n" });
    expect(parse(text).body).toBe("---\nnot: frontmatter\n");
  });
});

describe("updating an existing file", () => {
  test("unknown keys the caller did not mention survive the save", () => {
    const old = fixture("penpal.md");
    const next = updateCardText(old, { frontmatter: { title: "Alice", keywords: ["Alice", "Al"] } });
    const c = parse(next);
    expect(c.keywords).toEqual(["Alice", "Al"]);
    expect(c.frontmatter.emails).toEqual(["alice@example.com"]);
    expect(c.frontmatter.ais).toEqual([
      { name: "Aria", emails: ["aria@example.com", "aria.work@example.com"] },
    ]);
    expect(c.frontmatter.kind).toBe("people");
  });

  test("comments and quoting survive an update", () => {
    const old = fixture("commented.md");
    const next = updateCardText(old, { frontmatter: { ...parse(old).frontmatter, priority: 5 } });
    expect(next).toContain("# Alice, from the payments team");
    expect(next).toContain('title: "Alice" # quoted on purpose');
    expect(next).toContain("  - Alice # her name");
    expect(next).toContain("  - 'payments team'");
    expect(next).toContain("selective: yes");
    expect(next).toContain("priority: 5");
    expect(next.slice(next.indexOf("## who"))).toBe(old.slice(old.indexOf("## who")));
  });

  test("an update that changes nothing returns the file byte for byte", () => {
    const old = fixture("commented.md");
    expect(updateCardText(old, { frontmatter: parse(old).frontmatter })).toBe(old);
  });

  test("a known field left out is removed; a value of undefined deletes any key", () => {
    const old = fixture("penpal.md");
    const next = parse(updateCardText(old, { frontmatter: { title: "Alice", emails: undefined } }));
    expect(next.keywords).toEqual([]);
    expect(next.frontmatter.emails).toBeUndefined();
    expect(next.frontmatter.ais).toBeDefined();
  });

  test("a lorebook field left out survives an update (no form shows it); undefined deletes it", () => {
    const old = "---\ntitle: Alice\nkeywords: [Alice]\ncontext: always\ndecorators: ['@@depth 2']\n---\nx\n";
    const kept = parse(updateCardText(old, { frontmatter: { title: "Alice", keywords: ["Ally"] } }));
    expect(kept.keywords).toEqual(["Ally"]);
    expect(kept.frontmatter).toMatchObject({ context: "always", decorators: ["@@depth 2"] });
    expect(kept.rules?.policy).toBe("always");
    const gone = parse(updateCardText(old, { frontmatter: { title: "Alice", context: undefined } }));
    expect(gone.frontmatter).not.toHaveProperty("context");
    expect(gone.keywords).toEqual([]);
  });

  test("a body-only update keeps the frontmatter bytes", () => {
    const old = fixture("commented.md");
    const next = updateCardText(old, { body: "## who\nNew text." });
    expect(next).toBe(`${old.slice(0, old.indexOf("## who"))}## who\nNew text.\n`);
  });

  test("CRLF files stay CRLF and keep their BOM", () => {
    const old = fixture("crlf-bom.md");
    const next = updateCardText(old, { frontmatter: { title: "Carol", keywords: ["Carol"], enabled: true } });
    expect(next.charCodeAt(0)).toBe(0xfeff);
    expect(next.replace(/\r\n/g, "")).not.toContain("\n");
    expect(parse(next).keywords).toEqual(["Carol"]);
    expect(next.endsWith("## recent\r\nBack from leave.\r\n")).toBe(true);
  });

  test("a file without frontmatter gains one", () => {
    const next = updateCardText("## who\nBob.\n", { frontmatter: { title: "Bob" } });
    expect(next).toBe("---\ntitle: Bob\n---\n## who\nBob.\n");
  });
});

describe("update_recent replaces only that section's bytes", () => {
  test.each([
    ["a middle section", "alice.md", "Took over the refund flow rewrite in September."],
    [
      "a card with comments in the frontmatter",
      "commented.md",
      "Took over the refund flow rewrite in September.",
    ],
    ["a CRLF file with a BOM", "crlf-bom.md", "Back from leave."],
  ])("in %s, every byte outside the section is unchanged", (_name, file, oldContent) => {
    const old = fixture(file);
    const eol = old.includes("\r\n") ? "\r\n" : "\n";
    const next = replaceSection(old, "recent", "Moved to the Berlin office.\nStill on payments.\n\n");
    expect(old.split(oldContent)).toHaveLength(2);
    expect(next).toBe(old.replace(oldContent, `Moved to the Berlin office.${eol}Still on payments.`));
  });

  test("the section is appended when the card has none", () => {
    const old = "---\ntitle: Bob\n---\n## who\nBob.\n";
    expect(replaceSection(old, "recent", "Started Monday.")).toBe(`${old}\n## recent\nStarted Monday.\n`);
  });

  test("the heading is found case-insensitively", () => {
    const old = "## Recent\nold\n\n## impression\nkind\n";
    expect(replaceSection(old, "recent", "new")).toBe("## Recent\nnew\n\n## impression\nkind\n");
  });

  test("an empty section directly followed by another heading gets a blank line", () => {
    expect(replaceSection("## recent\n## impression\nx\n", "recent", "now")).toBe(
      "## recent\nnow\n\n## impression\nx\n",
    );
  });

  test("a heading-only last line without a newline still works", () => {
    expect(replaceSection("## who\nA\n## recent", "recent", "now")).toBe("## who\nA\n## recent\nnow\n");
  });

  test("a ## recent inside a code fence is not the section", () => {
    const old = "```\n## recent\nfake\n```\n";
    expect(replaceSection(old, "recent", "real")).toBe(`${old}\n## recent\nreal\n`);
  });
});

describe("every text written is read back first", () => {
  const refusal = (write: () => string) => {
    try {
      write();
    } catch (err) {
      return err as LoreError;
    }
    throw new Error("the write was not refused");
  };

  test("an edit that would not read back as meant is an invalid_input naming the key", () => {
    // A collection key: the data names it "[ a, b ]", but no edit can address it in the YAML.
    const old = "---\n? [a, b]\n: x\ntitle: A\n---\nbody\n";
    const err = refusal(() => updateCardText(old, { frontmatter: { "[ a, b ]": undefined, title: "A" } }));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toBe(
      'frontmatter key "[ a, b ]" cannot be written: it would read back as "x" instead of nothing',
    );
  });

  test("a mapping-less frontmatter (a list) is refused with parse_error, not edited", () => {
    const err = refusal(() => updateCardText("---\n- a\n---\n", { frontmatter: { title: "A" } }));
    expect(err.code).toBe("parse_error");
  });

  test("an anchor the writer refuses is kept out of the file, or the edit refused when an alias uses it", () => {
    const err = refusal(() =>
      updateCardText("---\na: &\u0001 1\nb: *\u0001\n---\n", { frontmatter: { title: "A" } }),
    );
    expect(err).toMatchObject({ code: "parse_error" });
  });

  test("strings the plain and block styles would change are double-quoted", () => {
    expect(serializeCard({ frontmatter: { note: " \n", "\uFEFFa": "b\n\n" }, body: "" })).toBe(
      '---\nnote: "\\ \\n"\n"\uFEFFa": "b\\n\\n"\n---\n',
    );
  });
});
