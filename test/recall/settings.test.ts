// The vault's settings.yaml: what it may say, what it ignores with a warning, and that a surface's own
// options win over it.
import { afterEach, describe, expect, test } from "bun:test";
import { contextText, openEngine } from "../../src/recall/index.ts";
import { withSettings } from "../../src/recall/settings.ts";
import { parseSettings } from "../../src/vault/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

describe("parseSettings", () => {
  test.each([
    [
      "every key",
      "char: Seraphina\nuser: Ann\nbudget_tokens: 1200\nreach: named\n",
      { char: "Seraphina", user: "Ann", budgetTokens: 1200, reach: "named" },
      [],
    ],
    ["an empty file", "", {}, []],
    ["a key left empty", "char:\n", {}, []],
    [
      "an unknown key (the rest still applies)",
      "generic_keywords: [a]\nuser: Ann\n",
      { user: "Ann" },
      ['settings.yaml: unknown setting "generic_keywords"; ignored'],
    ],
    ["a bad reach", "reach: far\n", {}, ["settings.yaml: reach must be one-hop or named; ignored"]],
    [
      "a bad budget",
      "budget_tokens: -3\n",
      {},
      ["settings.yaml: budget_tokens must be a whole number ≥ 0; ignored"],
    ],
    [
      "a list instead of a mapping",
      "- char\n",
      {},
      ["settings.yaml: the file must be a mapping of setting: value; ignored"],
    ],
  ])("%s", (_name, text, settings, warnings) => {
    expect(parseSettings(text)).toEqual({ settings, warnings } as never);
  });

  test("YAML that does not parse is ignored with one warning", () => {
    const { settings, warnings } = parseSettings("char: [unclosed\n");
    expect(settings).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("settings.yaml: not valid YAML");
  });
});

describe("withSettings", () => {
  const file = { char: "Seraphina", user: "Ann", budgetTokens: 50, reach: "named" as const };

  test("what the caller leaves unset comes from the file, each name on its own", () => {
    expect(withSettings({ names: { user: "Bo" }, budgetTokens: 9 }, file)).toEqual({
      names: { char: "Seraphina", user: "Bo" },
      budgetTokens: 9,
      reach: "named",
    });
  });

  test("no file, no names: nothing is added", () => {
    expect(withSettings({ budget: 5 }, {})).toEqual({ budget: 5 });
  });
});

describe("an engine reads the vault's settings.yaml", () => {
  test("its names fill the macros; a changed file is read again; an option given wins", async () => {
    vault = tempVault({
      "people/Lyra.md": cardText("keywords: [Lyra]", "{{char}} and {{user}}\n"),
      "settings.yaml": "char: Seraphina\nuser: Ann\n",
    });
    const warnings: string[] = [];
    const engine = await openEngine(vault.root, { segmenter: false, warn: (l) => warnings.push(l) });
    const ask = async (opts = {}) => contextText(await engine.recall([{ role: "user", text: "Lyra" }], opts));
    expect(await ask()).toContain("Seraphina and Ann");
    expect(await ask({ names: { user: "Bo" } })).toContain("Seraphina and Bo");
    vault.write("settings.yaml", "char: Nyx\nunknown: 1\n");
    expect(await ask()).toContain("Nyx and {{user}}");
    expect(await ask()).toContain("Nyx and {{user}}");
    expect(warnings).toEqual(['lorecards: settings.yaml: unknown setting "unknown"; ignored']);
  });
});
