// Fuzzing card text: parseCard on any text (frontmatter built from YAML pieces that break parsers),
// serializeCard → parseCard round trips, and in-place edits with updateCardText.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  normalizeText,
  parseCard,
  publicText,
  publicTextOf,
  replaceSection,
  serializeCard,
  updateCardText,
} from "../../src/card/index.ts";
import { body, cardText, frontmatter, jsonSafe } from "./_cards.ts";
import { announce, attempt, expectCoded, expectFast, fuzz, timeoutFor } from "./_support.ts";

announce("card");

const PARSE = { runs: 1500, ms: 3000 };
const SERIALIZE = { runs: 1000, ms: 3000 };
const UPDATE = { runs: 800, ms: 3000 };

const KEYS = ["Alice", "the Friday deploy", "小林", "x"];

describe("parseCard", () => {
  test(
    "reads any text, or refuses it with parse_error, in under a second",
    async () => {
      await fuzz(
        "card/parse",
        fc.asyncProperty(cardText, fc.constantFrom(...KEYS), async (text, key) => {
          const out = await attempt(() => parseCard(text, { kind: "people", key }));
          await expectFast(out, "parseCard");
          if (!out.ok) {
            expectCoded(out.error, ["parse_error"]);
            return;
          }
          const card = out.value;
          expect(card.key).toBe(key);
          expect(card.publicChars).toBe(publicText(card).length);
          // The hook renders from publicTextOf without parsing the YAML: it must agree with the parser.
          expect(publicTextOf(text)).toBe(publicText(card));
        }),
        PARSE,
      );
    },
    timeoutFor(PARSE),
  );
});

describe("serializeCard", () => {
  test(
    "writes any frontmatter and body so that parseCard reads the same data and text back",
    async () => {
      await fuzz(
        "card/serialize",
        fc.asyncProperty(frontmatter, body, async (fm, text) => {
          const out = await attempt(() => serializeCard({ frontmatter: fm, body: text }));
          await expectFast(out, "serializeCard");
          if (!out.ok) {
            expectCoded(out.error, ["invalid_input", "too_large"]);
            return;
          }
          const back = await attempt(() => parseCard(out.value, { kind: "people", key: "x" }));
          await expectFast(back, "parseCard");
          if (!back.ok) throw new Error(`a card we wrote does not parse: ${(back.error as Error).message}`);
          expect(jsonSafe(back.value.frontmatter)).toEqual(fm);
          const written = normalizeText(text);
          expect(back.value.body).toBe(written === "" || written.endsWith("\n") ? written : `${written}\n`);
        }),
        SERIALIZE,
      );
    },
    timeoutFor(SERIALIZE),
  );
});

describe("updateCardText", () => {
  test(
    "edits any card it can read into one it can still read, holding the edits",
    async () => {
      await fuzz(
        "card/update",
        fc.asyncProperty(
          cardText,
          frontmatter,
          fc.option(body, { nil: undefined }),
          async (old, fm, text) => {
            const before = await attempt(() => parseCard(old, { kind: "people", key: "x" }));
            fc.pre(before.ok);
            const out = await attempt(() => updateCardText(old, { frontmatter: fm, body: text }));
            await expectFast(out, "updateCardText");
            if (!out.ok) {
              expectCoded(out.error, ["parse_error", "invalid_input"]);
              return;
            }
            const after = await attempt(() => parseCard(out.value, { kind: "people", key: "x" }));
            if (!after.ok)
              throw new Error(`an edited card does not parse: ${(after.error as Error).message}`);
            const data = jsonSafe(after.value.frontmatter) as Record<string, unknown>;
            for (const [k, v] of Object.entries(fm)) expect(data[k]).toEqual(v);
            if (text === undefined) return;
            const written = normalizeText(text);
            expect(after.value.body).toBe(
              written === "" || written.endsWith("\n") ? written : `${written}\n`,
            );
          },
        ),
        UPDATE,
      );
    },
    timeoutFor(UPDATE),
  );
});

describe("bugs the fuzzing found, fixed", () => {
  const readBack = (fm: Record<string, unknown>) =>
    parseCard(serializeCard({ frontmatter: fm, body: "" }), { kind: "people", key: "x" }).frontmatter;

  test("a frontmatter string with a whitespace-only line is written so that it can be read", () => {
    expect(readBack({ note: " \n\t\n" })).toEqual({ note: " \n\t\n" });
  });

  test("a frontmatter string with a line of spaces reads back unchanged", () => {
    expect(readBack({ note: " \n", after: 1 })).toEqual({ note: " \n", after: 1 });
  });

  test("a frontmatter string ending in a blank line keeps it when it is the last key", () => {
    expect(readBack({ note: "a\n\n" })).toEqual({ note: "a\n\n" });
  });

  test("a first frontmatter key that starts with U+FEFF keeps it", () => {
    expect(readBack({ "\uFEFFa": 1 })).toEqual({ "\uFEFFa": 1 });
  });

  test("parseCard reads `enabled: {toString: 0}` as the default, with a warning", () => {
    const card = parseCard("---\nenabled: {toString: 0}\n---\n", { kind: "people", key: "x" });
    expect(card.enabled).toBe(true);
    expect(card.warnings).toEqual(['enabled {"toString":0} is not yes/no; true is used']);
  });

  test.each(["~", "null", "...", "# only a comment"])(
    "a card whose frontmatter is `%s` can be edited",
    (yaml) => {
      const out = updateCardText(`---\n${yaml}\n---\nbody\n`, { frontmatter: { title: "A" } });
      expect(parseCard(out, { kind: "people", key: "x" }).title).toBe("A");
    },
  );

  test("an edit of a key written twice is kept, and the key is written once", () => {
    const out = updateCardText("---\ntitle: A\ntitle: B\n---\n", { frontmatter: { title: "C" } });
    expect(out).toBe("---\ntitle: C\n---\n");
  });

  test("a card whose mapping has the anchor `&\\u0000` can be edited (the unused anchor is dropped)", () => {
    const out = updateCardText("---\n&\u0000\nkind: x\n---\n", { frontmatter: { title: "A" } });
    expect(out).toBe("---\nkind: x\ntitle: A\n---\n");
  });

  test("editing a field another one refers to by an alias gives the alias a copy", () => {
    const out = updateCardText("---\ntitle: &t A\nnote: *t\n---\n", { frontmatter: { title: "B" } });
    expect(parseCard(out, { kind: "people", key: "x" }).frontmatter).toEqual({ title: "B", note: "A" });
  });

  test("a body edit keeps its first blank line when the closing fence has a trailing space", () => {
    const out = updateCardText("---\ntitle: A\n--- \nold\n", { body: "\nnew\n" });
    expect(parseCard(out, { kind: "people", key: "x" }).body).toBe("\nnew\n");
  });

  test("a `\\uFEFF---` line inside the frontmatter survives an edit", () => {
    const out = updateCardText("---\n\uFEFF---\ntitle: A\n---\nbody\n", { frontmatter: { title: "B" } });
    expect(parseCard(out, { kind: "people", key: "x" })).toMatchObject({ title: "B", body: "body\n" });
  });

  test("editing a card whose frontmatter block is empty writes the YAML under the opening fence", () => {
    expect(updateCardText("---\n---\nbody\n", { frontmatter: { title: "A" } })).toBe(
      "---\ntitle: A\n---\nbody\n",
    );
    expect(updateCardText("---\r\n---\r\nbody\r\n", { frontmatter: { title: "A" } })).toBe(
      "---\r\ntitle: A\r\n---\r\nbody\r\n",
    );
  });

  test("a recent text with a `---` line keeps a card whose opening fence never closes all body", () => {
    const old = "---\ntitle: U\n## recent\nold\n";
    const out = replaceSection(old, "recent", "a\n---\nb");
    const card = parseCard(out, { kind: "people", key: "x" });
    expect(card.frontmatter).toEqual({});
    expect(card.body).toBe("---\ntitle: U\n## recent\na\n---\nb\n");
  });
});
