// Macros in injected text, as SillyTavern reads them: {{char}}/<char>/<bot>, {{user}}/<user>, any letter
// case, comments removed, a macro without a configured name left as written.
import { afterEach, describe, expect, test } from "bun:test";
import { openEngine } from "../../src/recall/index.ts";
import { expandMacros, unnamedMacros } from "../../src/recall/macros.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const both = { char: "Seraphina", user: "Ann" };

describe("expandMacros", () => {
  test.each([
    ["{{char}} greets {{user}}.", both, "Seraphina greets Ann."],
    ["{{CHAR}} and {{User}}", both, "Seraphina and Ann"],
    ["<char>, <BOT> and <user>", both, "Seraphina, Seraphina and Ann"],
    ["a{{// hidden\nacross lines }}b", both, "ab"],
    ["a{{// removed even with no names}}b", {}, "ab"],
    ["{{char}} and <user> stay without names", {}, "{{char}} and <user> stay without names"],
    ["{{char}} meets {{user}}", { user: "Ann" }, "{{char}} meets Ann"],
    [
      "{{ char }} and {{charIfNotGroup}} are not ours",
      both,
      "{{ char }} and {{charIfNotGroup}} are not ours",
    ],
    [
      "a name that looks like a macro is not expanded again",
      { char: "{{user}}", user: "Ann" },
      "a name that looks like a macro is not expanded again",
    ],
    ["{{char}}", { char: "{{user}}", user: "Ann" }, "{{user}}"],
    ["$& and $1 in names stay literal: {{char}}", { char: "$&$1" }, "$& and $1 in names stay literal: $&$1"],
  ])("%p", (text, names, expected) => {
    expect(expandMacros(text, names)).toBe(expected);
  });
});

describe("unnamedMacros (what check reports)", () => {
  test.each([
    ["<BOT> meets {{user}}", {}, ["char", "user"]],
    ["<bot> meets {{USER}}, with a char name only", { char: "Nyx" }, ["user"]],
    ["{{// {{char}} in a comment is not used}} plain", {}, []],
    ["no macros", {}, []],
  ])("%p", (text, names, expected) => {
    expect(unnamedMacros(text, names)).toEqual(expected as never);
  });
});

describe("in a recall", () => {
  const files = {
    "people/Lyra.md": cardText(
      "keywords: [Lyra]\nrefs: [Harbor]",
      "{{char}} trusts Lyra; {{user}} does not.{{// author note}}\n",
    ),
    "places/Harbor.md": cardText("keywords: [harbor]", "Where <char> first met <user>.\n"),
  };

  test("names given to the recall fill the body and the see-also lines; the heading stays as written", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([{ role: "user", text: "Lyra?" }], { names: both });
    expect(r.context).toBe(
      "A memory surfaces:\n\n### Lyra [people]\nSeraphina trusts Lyra; Ann does not.\n" +
        "see also: Harbor — Where Seraphina first met Ann.\n",
    );
  });

  test("the same card and names give the same bytes twice (byte-stable)", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const once = await engine.recall([{ role: "user", text: "Lyra?" }], { names: both });
    const again = await (await openEngine(vault.root, { segmenter: false })).recall(
      [{ role: "user", text: "Lyra?" }],
      { names: both },
    );
    expect(again.context).toBe(once.context);
  });
});
