// Shared by the interop tests: the real files from the field, and a trip through a real card file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseCard, serializeCard } from "../../src/card/index.ts";
import type { CardDraft } from "../../src/card/types.ts";
import { cardToExport, type ExportCard } from "../../src/interop/index.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

export const REAL_DIR = REAL_FIXTURES;
export const HAVE_REAL = haveRealFixture("interop: the real-file tests", "st-worldinfo-Eldoria.json");

export const BAD_DIR = path.resolve(import.meta.dir, "../fixtures/interop");

export function real(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(REAL_DIR, name)));
}

export function bad(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(BAD_DIR, name)));
}

/** What the exporter sees of a draft after it was written to a card file and read back. */
export function throughFile(draft: CardDraft): ExportCard {
  return cardToExport(parseCard(serializeCard(draft), { kind: draft.kind, key: draft.key }));
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
}

export function json(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes));
}
