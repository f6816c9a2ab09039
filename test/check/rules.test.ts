// check on lorebook cards: keys that do not compile, macros with no name, NOT ALL lists that veto
// every hit, decorator problems, and kinds.yaml settings that were ignored.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardMeta, parseCard, parseKindsConfig, publicText } from "../../src/card/index.ts";
import type { Card } from "../../src/card/types.ts";
import { checkCards, type Finding } from "../../src/check/index.ts";
import { loadIndex, openVault } from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

/** A card with keywords of its own, or `card` (so no no_keywords warning gets in the way). */
const card = (frontmatter: string, body = "Some text.\n") =>
  parseCard(
    `---\ntitle: Card\n${/keywords|aliases/.test(frontmatter) ? "" : "keywords: [card]\n"}${frontmatter}\n---\n${body}`,
    {
      kind: "entry",
      key: "Card",
      path: "Card.md",
    },
  );

const found = (c: Card, context: Parameters<typeof checkCards>[4] = {}) =>
  checkCards([cardMeta(c)], [], [{ path: c.path, warnings: c.warnings }], [], context);
const codes = (list: Finding[]) => list.map((f) => `${f.severity} ${f.code}`);

describe("regular-expression keys", () => {
  test.each([
    ["a /pattern/ key that compiles", "keywords: ['/drag(on|oness)/i']", []],
    ["a /pattern/ key that does not compile", "keywords: ['/drag(on/']", ["warning bad_pattern"]],
    [
      "a bare key of a regex card that does not compile",
      "regex: true\naliases: ['ca[t']",
      ["warning bad_pattern"],
    ],
    ["the same bare key on a plain card is just a word", "aliases: ['ca[t']", []],
    [
      "a backreference, which a linear-time engine refuses",
      "keywords: ['/(a)\\1/']",
      ["warning bad_pattern"],
    ],
  ])("%s", (_name, yaml, expected) => {
    expect(codes(found(card(yaml)))).toEqual(expected);
  });

  test("the finding names the key and the engine's reason", () => {
    const [f] = found(card("keywords: ['/drag(on/']"));
    expect(f!.detail).toStartWith('key "/drag(on/" is not a regular expression lorecards can run (');
    expect(f!.detail).toEndWith("so it never matches");
  });
});

describe("secondary not_all", () => {
  test.each([
    ["every NOT ALL word also required", "secondary: {all: [a, b], not_all: [a, B]}", ["error never_fires"]],
    ["one NOT ALL word not required", "secondary: {all: [a], not_all: [a, c]}", []],
    ["an always card, which no word gates", "context: always\nsecondary: {all: [a], not_all: [a]}", []],
  ])("%s", (_name, yaml, expected) => {
    expect(codes(found(card(yaml)))).toEqual(expected);
  });
});

describe("cards that do not wait for their words", () => {
  test.each([
    ["an always card needs no keywords", "context: always", []],
    ["a manual card needs no keywords", "context: manual", []],
    ["an automatic card without keywords is still told", "context: automatic", ["warning no_keywords"]],
  ])("%s", (_name, yaml, expected) => {
    const c = parseCard(`---\ntitle: Card\n${yaml}\n---\nText.\n`, { kind: "entry", key: "Card" });
    expect(codes(found(c))).toEqual(expected);
  });
});

describe("decorator problems", () => {
  test("are reported as values that fell back, one per problem", () => {
    const list = found(card("decorators: ['@@depth far', '@@frobnicate', '@@activate']"));
    expect(list.map((f) => [f.code, f.detail])).toEqual([
      ["bad_value", 'decorator "@@depth far" needs a whole number ≥ 0; ignored'],
      ["bad_value", 'decorator "@@frobnicate" is not a known decorator; ignored'],
    ]);
  });
});

describe("keys that hold macros", () => {
  test.each([
    ["{{char}} as a keyword", "keywords: ['{{char}}']", ["warning macro_in_key"]],
    ["<user> as an alias", "aliases: ['<user>']", ["warning macro_in_key"]],
    ["a plain key", "keywords: [Marguerite]", []],
  ])("%s", (_name, yaml, expected) => {
    expect(codes(found(card(yaml)))).toEqual(expected);
  });
});

describe("macros with no name configured", () => {
  const text = (c: Card) => () => publicText(c);

  test.each([
    ["{{char}} with no names", "{{char}} waves.", {}, ["warning unnamed_macro"]],
    ["{{user}} with only a char name", "Hello {{User}}.", { char: "Seraphina" }, ["warning unnamed_macro"]],
    ["<bot> with no names", "<bot> waves.", {}, ["warning unnamed_macro"]],
    ["{{char}} with a char name", "{{char}} waves.", { char: "Seraphina" }, []],
    ["both, both named", "{{char}} greets {{user}}.", { char: "S", user: "Ann" }, []],
    ["a comment only", "{{// note to self}}Text.", {}, []],
    [
      "the spec's other macros",
      "{{random:a,b}} {{pick:c,d}} {{roll:d6}} {{comment: x}} {{hidden_key:y}}",
      {},
      [],
    ],
    ["a macro the spec does not define", "It is {{time}}.", {}, ["warning unknown_macro"]],
    ["a misspelt name", "Hello {{usr}}.", { char: "S", user: "Ann" }, ["warning unknown_macro"]],
  ])("%s", (_name, body, names, expected) => {
    const c = card("", body);
    expect(codes(found(c, { text: text(c), names }))).toEqual(expected);
  });

  test("the finding says which name is missing and where to set it", () => {
    const c = card("", "Hello {{user}}.");
    const [f] = found(c, { text: text(c) });
    expect(f!.detail).toBe(
      'its text uses {{user}}, but no user name is configured (settings.yaml `user:` or --user), so the model reads "{{user}}" as written',
    );
  });

  test("unknown macros are named, each once, with the spec's list beside them", () => {
    const c = card("", "{{time}} {{time}} {{getvar::mood}} {{date}} {{weekday}}");
    const [f] = found(c, { text: text(c) });
    expect(f!.detail).toStartWith(
      'its text uses "{{time}}", "{{getvar::mood}}", "{{date}}" and 1 more, which lorecards does not know (the card spec\'s macros are {{char}}',
    );
  });

  test.each([
    ["a card never injected", "context: never"],
    ["a disabled card", "enabled: false"],
  ])("%s is not reported", (_name, yaml) => {
    const c = card(yaml, "{{char}} waves.");
    expect(codes(found(c, { text: text(c) }))).toEqual([]);
  });

  test("a macro only in a private section is not reported", () => {
    const c = card("", "Text.\n\n## correspondence\n{{char}} wrote.\n");
    expect(c.sections[0]!.private).toBe(true);
    expect(codes(found(c, { text: text(c) }))).toEqual([]);
  });

  test("without the cards' text, macros are not checked", () => {
    expect(codes(found(card("", "{{char}} waves.")))).toEqual([]);
  });
});

describe("kinds.yaml", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) removeDir(d);
  });

  test("an ignored setting is a warning naming it", () => {
    const kinds = parseKindsConfig("generic_keywords: [the, a]");
    expect(checkCards([], [], [], [], { kinds })).toEqual([
      {
        severity: "warning",
        code: "bad_setting",
        card: "kinds.yaml",
        path: "kinds.yaml",
        detail: 'kinds.yaml: unknown setting "generic_keywords" is ignored',
      },
    ]);
  });

  test("a vault with the Python original's kinds.yaml opens, loads its cards and checks", () => {
    const root = makeVault([]);
    dirs.push(root);
    fs.writeFileSync(path.join(root, "kinds.yaml"), "generic_keywords: [the, a]\n");
    fs.writeFileSync(path.join(root, "Lyon.md"), "---\ntitle: Lyon\n---\nA city.\n");
    const vault = openVault(root);
    const index = loadIndex(vault);
    expect(index.cards.map((c) => c.key)).toContain("Lyon");
    const list = checkCards(index.cards, index.broken, index.warnings, [], { kinds: vault.kinds });
    expect(codes(list)).toContain("warning bad_setting");
  });
});
