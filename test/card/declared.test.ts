// The declared half (always-on cards, cards asked for) is never trimmed by a budget, so a person is
// told when it alone is large: by check, try (and /api/try, the same JSON), and an import.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { declaredSize, declaredWarning, estimateTokens } from "../../src/card/index.ts";
import { checkVault } from "../../src/check/vault.ts";
import { DEFAULTS } from "../../src/defaults.ts";
import { recallJson } from "../../src/explain/index.ts";
import { importBook } from "../../src/interop/index.ts";
import { openEngine } from "../../src/recall/index.ts";
import { initVault, openVault } from "../../src/vault/index.ts";
import { HAVE_REAL, real, tempDir } from "../interop/_support.ts";
import { cardText, tempVault } from "../support/card-vault.ts";

/** An always-on card of about `tokens` tokens of English. */
const always = (tokens: number) =>
  cardText("context: always", `${"word ".repeat(Math.round(tokens * 0.8))}\n`);

describe("the estimate", () => {
  test.each([
    ["English: about four characters a token", "a".repeat(400), 100],
    ["Chinese: three quarters of a token a character", "玲".repeat(400), 300],
    ["mixed", `${"a".repeat(40)}${"玲".repeat(40)}`, 40],
  ])("%s", (_name, text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  test(`says nothing up to ${DEFAULTS.declaredWarnTokens} tokens and names the size above`, () => {
    expect(declaredWarning({ cards: 2, tokens: DEFAULTS.declaredWarnTokens }, "X")).toBeUndefined();
    expect(declaredWarning({ cards: 2, tokens: 5230 }, "The always-on cards")).toStartWith(
      "The always-on cards (2 cards) come to about 5,230 tokens every turn, over 4,000",
    );
    expect(declaredSize(["aaaa", "bbbbbbbb"])).toEqual({ cards: 2, tokens: 3 });
  });
});

describe("where it is said", () => {
  test("check names large always-on cards; small ones are not mentioned", () => {
    const vault = tempVault({ "A.md": always(3000), "B.md": always(2000) });
    try {
      const found = checkVault(openVault(vault.root)).findings.filter((f) => f.code === "large_declared");
      expect(found).toHaveLength(1);
      expect(found[0]!.detail).toContain("The always-on cards (2 cards) come to about");
      fs.writeFileSync(path.join(vault.root, "B.md"), always(100));
      expect(checkVault(openVault(vault.root)).findings.some((f) => f.code === "large_declared")).toBe(false);
    } finally {
      vault.remove();
    }
  });

  test("try --json (and /api/try) carries the declared half's size and the warning", async () => {
    const vault = tempVault({ "A.md": always(5000), "people/Ann.md": cardText("keywords: [Ann]", "Ann.\n") });
    try {
      const engine = await openEngine(vault.root, { segmenter: false });
      const json = recallJson(await engine.recall([{ role: "user", text: "Ann?" }], { budget: 10 }));
      expect(json.injected).toEqual(["Ann", "A"]);
      expect(json.declared.cards).toBe(1);
      expect(json.declared.tokens).toBeGreaterThan(4000);
      expect(json.declared.warning).toContain("no budget trims them");
      engine.close();
    } finally {
      vault.remove();
    }
  });

  test("check and try give one count for the same always-on cards: each as it is sent, its heading too", async () => {
    const vault = tempVault({ "A.md": always(3000), "Betty Boop the Long-Named.md": always(2000) });
    try {
      const said = (text: string | null | undefined) =>
        Number(/about ([\d,]+) tokens/.exec(text ?? "")?.[1]?.replace(/,/g, ""));
      const checked = checkVault(openVault(vault.root)).findings.find((f) => f.code === "large_declared");
      const engine = await openEngine(vault.root, { segmenter: false });
      const tried = recallJson(await engine.recall([{ role: "user", text: "hello" }], {}));
      engine.close();
      expect(tried.declared.cards).toBe(2);
      expect(said(checked?.detail)).toBe(tried.declared.tokens);
      expect(said(tried.declared.warning)).toBe(tried.declared.tokens);
    } finally {
      vault.remove();
    }
  });

  test.skipIf(!HAVE_REAL)(
    "importing the 761-entry Chinese book says its 15 always-on entries are large",
    async () => {
      const root = path.join(tempDir(), "vault");
      initVault(root);
      try {
        const result = await importBook(openVault(root), real("sora_Eldoria_V10.6.0.json"), {
          filename: "sora_Eldoria_V10.6.0.json",
        });
        expect(result.notes.find((n) => n.startsWith("The always-on cards"))).toMatch(
          /\(1[5-9] cards\) come to about [\d,]+ tokens every turn/,
        );
      } finally {
        fs.rmSync(path.dirname(root), { recursive: true, force: true });
      }
    },
    60_000,
  );
});
