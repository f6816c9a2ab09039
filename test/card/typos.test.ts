// Frontmatter keys that look like a field but are none are kept and named, with the field meant.
import { describe, expect, test } from "bun:test";
import { parseCard } from "../../src/card/index.ts";

const warningsOf = (frontmatter: string) =>
  parseCard(`---\n${frontmatter}\n---\nText.\n`, { kind: "people", key: "Ann" }).warnings;

describe("a key that looks like a field", () => {
  test.each([
    ["policy: always", "policy", "context: always"],
    ["policy: Manual only", "policy", "context: manual"],
    ["constant: true", "constant", "context: always"],
    ["disabled: true", "disabled", "enabled: false"],
    ["keyword: [Ann]", "keyword", "keywords"],
    ["Keywords: [Ann]", "Keywords", "keywords"],
    ["keys: [Ann]", "keys", "keywords"],
    ["secondary_keys: [x]", "secondary_keys", "secondary: { any: [...] }"],
    ["scanDepth: 2", "scanDepth", "scan_depth"],
    ["caseSensitive: true", "caseSensitive", "case_sensitive"],
    ["matchWholeWords: true", "matchWholeWords", "whole_words"],
    ["use_regex: true", "use_regex", "regex"],
    ["insertion_order: 5", "insertion_order", "order"],
    ["prioirty: 2", "prioirty", "priority"],
    ["ignoreBudget: true", "ignoreBudget", "ignore_budget"],
  ])("%p is kept, and named with what was meant", (line, key, meant) => {
    expect(warningsOf(line)).toEqual([
      `unknown key "${key}" is kept but does nothing: did you mean \`${meant}\`?`,
    ]);
  });

  test.each([
    "emails: [a@b.c]",
    "created: 2024-05-01",
    "status: draft",
    "st: { uid: 1 }",
    "card: {}",
    "tags: [x]",
    "context: always",
    // Names every object has: a key must find only the fields' own list, never Object's.
    "__proto__: x",
    "constructor: x",
    "toString: x",
  ])("%p is not mentioned", (line) => {
    expect(warningsOf(line)).toEqual([]);
  });

  test("the key stays in the frontmatter as written", () => {
    const card = parseCard("---\npolicy: always\n---\nText.\n", { kind: "people", key: "Ann" });
    expect(card.frontmatter).toEqual({ policy: "always" });
  });
});
