/**
 * The line `import` prints (src/cli/import.ts summaryLine): which book the cards went into, when not
 * the vault's own, and the kind of card they became, on the real files from the field.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { summaryLine } from "../../src/cli/import.ts";
import { importIntoBook } from "../../src/interop/index.ts";
import { initVault } from "../../src/vault/index.ts";
import { HAVE_REAL, real, tempDir } from "../interop/_support.ts";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!HAVE_REAL)("the line an import prints", () => {
  test.each([
    [
      "a world book into the vault's own cards names no book",
      "st-worldinfo-Eldoria.json",
      "main",
      "imported Eldoria.json (st) as entry cards: 4 created, 0 kept, 0 overwritten, 0 skipped",
    ],
    [
      "a character card into her own book names the book, new, and whom it is bound to",
      "st-card-Seraphina.png",
      undefined,
      "imported Seraphina.png (card-png) into the book seraphina (new), bound to Seraphina, as entry cards: 4 created, 0 kept, 0 overwritten, 0 skipped",
    ],
  ])("%s", async (_name, file, book, line) => {
    const root = path.join(dir, file);
    initVault(root);
    const filename = file.replace(/^st-(worldinfo|card)-/, "");
    const result = await importIntoBook(root, real(file), { filename, ...(book && { book }) });
    expect(summaryLine(filename, result)).toBe(line);
  });
});
