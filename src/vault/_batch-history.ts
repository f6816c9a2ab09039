import path from "node:path";
import { readPlain } from "../plain-file.ts";
import { type Action, type Change, recordChanges, type StepInfo, WRITERS, type Writer } from "./history.ts";
import type { Vault } from "./paths.ts";

/** How a batch's versions are recorded: who placed the files, and as what. */
export interface BatchRecord {
  writer: Writer;
  /** The versions' action, unless a placement says its own. */
  action: Action;
  /** What the step as a whole was (history.ts StepInfo). */
  step?: StepInfo;
}

export const IMPORT_RECORD: BatchRecord = { writer: "import", action: "import" };

const ACTIONS: readonly string[] = ["import", "update", "archive", "restore", "move", "undo"];

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
    return readPlain(file);
  } catch {
    return null;
  }
}

/** One placed or removed file: where, the card text it replaced or took away (null: none) and its own. */
export interface Placed {
  target: string;
  before: string | null;
  /** Null: the file was taken away. */
  after: string | null;
  action?: Action;
}

/** The step's number, or null when nothing was recorded. */
export function recordBatch(vault: Vault, record: BatchRecord, placed: readonly Placed[]): number | null {
  const changes: Change[] = [];
  for (const p of placed) {
    const card = cardAt(vault, p.target);
    const action = p.action ?? record.action;
    if (card !== null) changes.push({ ...card, action, before: p.before, after: p.after });
  }
  return recordChanges(vault, record.writer, changes, { step: record.step });
}
