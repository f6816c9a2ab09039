/**
 * Lorebook inputs for the interop fuzz suites: World Info books, Character Card V2/V3 and lorebook_v3
 * exports built field by field (each field of the right type or of any other), the real files from the
 * field mutated at random paths, and the checks an import must pass.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { type ImportResult, importBook } from "../../src/interop/index.ts";
import { loadIndex, type Vault } from "../../src/vault/index.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { anyString, mutatedJson, shapedObject, shortString } from "./_arbitraries.ts";
import { attempt, expectCoded, expectFast, expectUntouched, type Sandbox, untouched } from "./_support.ts";

export const REAL_DIR = REAL_FIXTURES;
export const HAVE_REAL = haveRealFixture("fuzz: mutations of the real books", "st-worldinfo-Eldoria.json");
export const FIXTURE_DIR = path.resolve(import.meta.dir, "../fixtures/interop");

export function realJson(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(REAL_DIR, name), "utf8"));
}

/** Codes an import may refuse with. */
export const IMPORT_REFUSALS = [
  "parse_error",
  "invalid_input",
  "too_large",
  "unknown_kind",
  "conflict",
] as const;

const words = fc.oneof(fc.array(shortString, { maxLength: 4 }), shortString);
const small = fc.integer({ min: -5, max: 1000 });

const ST_FIELDS = {
  uid: fc.nat(),
  key: words,
  keysecondary: words,
  comment: anyString,
  content: anyString,
  constant: fc.boolean(),
  selective: fc.boolean(),
  selectiveLogic: fc.integer({ min: -1, max: 4 }),
  order: small,
  position: small,
  disable: fc.boolean(),
  scanDepth: fc.option(small),
  depth: small,
  probability: small,
  group: shortString,
};

const CHARBOOK_FIELDS = {
  id: fc.oneof(fc.nat(), shortString),
  keys: words,
  secondary_keys: words,
  selective: fc.boolean(),
  content: anyString,
  insertion_order: small,
  priority: small,
  enabled: fc.boolean(),
  name: anyString,
  comment: anyString,
  constant: fc.boolean(),
  case_sensitive: fc.boolean(),
  use_regex: fc.boolean(),
  position: fc.constantFrom("before_char", "after_char", 0, "x"),
  extensions: shapedObject({ selectiveLogic: fc.integer({ min: -1, max: 4 }), depth: small }),
};

const stEntry = shapedObject(ST_FIELDS);
const charbookEntry = shapedObject(CHARBOOK_FIELDS);

const stBook = shapedObject({
  entries: fc.oneof(
    fc.dictionary(fc.oneof(fc.nat().map(String), shortString), stEntry, { maxKeys: 6 }),
    fc.array(stEntry, { maxLength: 6 }),
  ),
  name: anyString,
});

const characterBook = shapedObject({
  name: anyString,
  scan_depth: small,
  entries: fc.array(charbookEntry, { maxLength: 6 }),
  extensions: shapedObject({}),
});

const card = shapedObject({
  spec: fc.constantFrom("chara_card_v2", "chara_card_v3", "chara_card_v1", "lorebook_v3", ""),
  spec_version: fc.constantFrom("2.0", "3.0", "3.5", "99", 3),
  data: shapedObject({ name: anyString, description: anyString, character_book: characterBook }),
});

const lorebookV3 = shapedObject({
  spec: fc.constant("lorebook_v3"),
  data: characterBook,
});

/** The real books and cards from the field, each mutated at a few random paths. */
function realBooks(): fc.Arbitrary<unknown>[] {
  if (!HAVE_REAL) return [];
  const names = [
    "st-worldinfo-Eldoria.json",
    "hxh_Weather_Director.json",
    "st-card-Seraphina.chara.json",
    "dootaang_lorebook_export.json",
  ];
  return names.map((n) =>
    mutatedJson(realJson(n), [...Object.keys(ST_FIELDS), ...Object.keys(CHARBOOK_FIELDS)]),
  );
}

/** A lorebook as parsed JSON: structured from scratch, or a real one mutated. */
export const bookJson: fc.Arbitrary<unknown> = fc.oneof(stBook, card, lorebookV3, ...realBooks());

/** The same value as it reaches the importer: a parsed object (the API), JSON text or file bytes. */
const bookText = bookJson.map((v) => JSON.stringify(v) ?? "null");

export const bookInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: bookText.map((t) => JSON.parse(t) as unknown) },
  { weight: 2, arbitrary: bookText.map((t) => new TextEncoder().encode(t)) },
  { weight: 1, arbitrary: bookText },
  { weight: 1, arbitrary: anyString.map((s) => new TextEncoder().encode(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
);

/**
 * One import with every check: a coded refusal that leaves the vault as it was, or cards that all read
 * back; never a write outside the vault; never over a second.
 */
export async function checkImport(
  box: Sandbox,
  vault: Vault,
  input: unknown,
  opts: { kind: string; force: boolean },
): Promise<ImportResult | null> {
  const before = untouched(box);
  const out = await attempt(() => importBook(vault, input, { filename: "fuzzed", ...opts }));
  await expectFast(out, "importBook");
  if (!out.ok) {
    const err = expectCoded(out.error, IMPORT_REFUSALS);
    expectUntouched(box, before, `the import was refused (${err.code}: ${err.message})`);
    return null;
  }
  expectUntouched(box, before);
  const broken = loadIndex(vault).broken;
  if (broken.length > 0)
    throw new Error(`the import wrote cards that do not parse: ${JSON.stringify(broken[0])}`);
  return out.value;
}
