// Fuzzing the importer with files: PNG character cards and CHARX zips, mutated (see _containers.ts).
// Each is read or refused with a code in under a second; an import is whole or leaves the vault as it was.
import { describe, test } from "bun:test";
import fc from "fast-check";
import { parseBook } from "../../src/interop/index.ts";
import { checkImport, IMPORT_REFUSALS } from "./_books.ts";
import { charxInput, fixtureCharx, pngInput } from "./_containers.ts";
import { announce, attempt, expectCoded, expectFast, fuzz, timeoutFor, vaultSandbox } from "./_support.ts";

announce("interop-files");

const PNG = { runs: 1500, ms: 3000 };
const CHARX = { runs: 800, ms: 3000 };
const IMPORT = { runs: 300, ms: 3000 };
/** Small zip limits, so a bomb costs milliseconds; the same code paths as the defaults. */
const ZIP_LIMITS = { maxEntryBytes: 256 * 1024, maxTotalBytes: 1024 * 1024, maxEntries: 50 };

// --- properties ------------------------------------------------------------------------------------

async function parses(bytes: Uint8Array): Promise<void> {
  const out = await attempt(() => parseBook(bytes, { filename: "fuzzed", zipLimits: ZIP_LIMITS }));
  await expectFast(out, "parseBook");
  if (!out.ok) expectCoded(out.error, IMPORT_REFUSALS);
}

describe("parseBook on files", () => {
  test(
    "reads any mutated PNG card or refuses it with a code, in under a second",
    async () => {
      await fuzz("interop/png", fc.asyncProperty(pngInput, parses), PNG);
    },
    timeoutFor(PNG),
  );

  test(
    "reads any CHARX archive, built odd or mutated, or refuses it with a code, in under a second",
    async () => {
      const input = fc.oneof(
        { weight: 4, arbitrary: charxInput },
        { weight: 1, arbitrary: fixtureCharx.map(async (b) => b) },
      );
      await fuzz(
        "interop/charx",
        fc.asyncProperty(input, async (bytes) => parses(await bytes)),
        CHARX,
      );
    },
    timeoutFor(CHARX),
  );
});

describe("importBook on files", () => {
  const shared = vaultSandbox();

  test(
    "imports a mutated PNG or CHARX whole, or refuses it and leaves the vault as it was",
    async () => {
      const { box, vault } = shared;
      const input = fc.oneof(
        pngInput.map(async (b) => b),
        charxInput,
      );
      await fuzz(
        "interop/import-files",
        fc.asyncProperty(input, fc.boolean(), async (bytes, force) => {
          const file = await bytes;
          await checkImport(box, vault, file, { kind: "entry", force });
        }),
        IMPORT,
      );
    },
    timeoutFor(IMPORT),
  );
});
