/**
 * The versions a batch placement (_batch.ts: imports, `repair`) records, one per card file it put in
 * place: the text before is the replaced card's (kept in the staging folder's `old/` until the batch is
 * done), the text after is what was staged. A card is named in history by its kind and key, found
 * from its path; a file that is no kind's card (it never is, from the callers) is left out.
 */
import fs from "node:fs";
import path from "node:path";
import { type Action, type Change, recordChanges, WRITERS, type Writer } from "./history.ts";
import type { Vault } from "./paths.ts";

/** How a batch's versions are recorded: who placed the files, and as what. */
export interface BatchRecord {
  writer: Writer;
  action: Action;
}

export const IMPORT_RECORD: BatchRecord = { writer: "import", action: "import" };

const ACTIONS: readonly string[] = ["import", "update"];

/** A plan file's record as written by placeAll, or the import's when it says anything else. */
export function recordOf(value: unknown): BatchRecord {
  const r = value as Partial<BatchRecord> | null | undefined;
  const known = (WRITERS as readonly unknown[]).includes(r?.writer) && ACTIONS.includes(String(r?.action));
  return known ? (r as BatchRecord) : IMPORT_RECORD;
}

/** The kind and key of the card file at `file` (absolute), or null when it is no kind's card file. */
export function cardAt(vault: Vault, file: string): { kind: string; key: string } | null {
  const rel = path.relative(vault.root, file);
  if (!rel.endsWith(".md") || rel.startsWith("..") || path.isAbsolute(rel)) return null;
  const dir = path.dirname(rel) === "." ? "" : path.dirname(rel).split(path.sep).join("/");
  const kind = vault.kinds.kinds.find((k) => k.dir === dir);
  return kind ? { kind: kind.name, key: path.basename(rel, ".md") } : null;
}

/** A file's text, or null when it is not there or cannot be read (its version then has no text before). */
export function textOrNull(file: string | undefined): string | null {
  if (file === undefined) return null;
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** One placed file: where it went, the card text it replaced (null: none) and its own. */
export interface Placed {
  target: string;
  before: string | null;
  after: string;
}

export function recordBatch(vault: Vault, record: BatchRecord, placed: readonly Placed[]): void {
  const changes: Change[] = [];
  for (const p of placed) {
    const card = cardAt(vault, p.target);
    if (card !== null) changes.push({ ...card, action: record.action, before: p.before, after: p.after });
  }
  recordChanges(vault, record.writer, changes);
}
