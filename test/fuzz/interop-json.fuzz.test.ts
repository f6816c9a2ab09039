// Fuzzing the lorebook importer with JSON: SillyTavern World Info, Character Card V2/V3 JSON and
// lorebook_v3 exports, built field by field with wrong types anywhere, and the real files mutated.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { importBook, parseBook } from "../../src/interop/index.ts";
import { anyString, nested } from "./_arbitraries.ts";
import { bookInput, checkImport, IMPORT_REFUSALS } from "./_books.ts";
import {
  announce,
  attempt,
  expectCoded,
  expectFast,
  fuzz,
  inNewVault,
  timeoutFor,
  vaultSandbox,
} from "./_support.ts";

announce("interop-json");

/** Deep enough to overflow the stack of any recursive walk (the YAML writer did, from ~10,000). */
const DEEP_NESTING = 20_000;

const PARSE = { runs: 2000, ms: 3000 };
const IMPORT = { runs: 400, ms: 4000 };

describe("parseBook", () => {
  test(
    "reads any JSON book, card or bytes, or refuses it with a code, in under a second",
    async () => {
      await fuzz(
        "interop/parse-json",
        fc.asyncProperty(bookInput, async (input) => {
          const out = await attempt(() => parseBook(input, { filename: "fuzzed.json" }));
          await expectFast(out, "parseBook");
          if (!out.ok) expectCoded(out.error, IMPORT_REFUSALS);
        }),
        PARSE,
      );
    },
    timeoutFor(PARSE),
  );
});

describe("importBook", () => {
  const shared = vaultSandbox();

  test(
    "writes every entry as a card that reads back, or refuses and leaves the vault as it was",
    async () => {
      const { box, vault } = shared;
      const kind = fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom("entry", "thing", "people", "slang") },
        { weight: 1, arbitrary: anyString },
      );
      await fuzz(
        "interop/import-json",
        fc.asyncProperty(bookInput, kind, fc.boolean(), async (input, k, force) => {
          await checkImport(box, vault, input, { kind: k, force });
        }),
        IMPORT,
      );
    },
    timeoutFor(IMPORT),
  );
});

describe("inputs the fuzzers once found", () => {
  test("parseBook refuses a card whose spec_version is `{toString: 0}` with a code", async () => {
    const card = { spec: "chara_card_v2", spec_version: { toString: 0 }, data: {} };
    const out = await attempt(() => parseBook(card, { filename: "card.json" }));
    if (!out.ok) expectCoded(out.error, IMPORT_REFUSALS);
  });

  test("importBook refuses a book with a deeply nested entry field with a code, quickly", async () => {
    await inNewVault(async (vault) => {
      const book = {
        entries: { "0": { key: ["deep"], content: "x", extra: nested(DEEP_NESTING, "arrays") } },
      };
      const out = await attempt(() => importBook(vault, book, { filename: "deep.json" }));
      await expectFast(out, "importBook");
      expect(out.ok).toBe(false);
      if (!out.ok) expectCoded(out.error, IMPORT_REFUSALS);
    });
  });
});
