/**
 * The only part of interop that touches a vault. An import is all or nothing: under the vault lock,
 * every card file is first written into a staging folder under `.lorecards/`, then moved into place
 * (files it replaces are moved aside first); if any step fails, the moves are undone and the vault is
 * left exactly as it was.
 */

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { kindByName, serializeCard } from "../card/index.ts";
import type { CardDraft } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { cardPath, loadIndex, readCard, STATE_DIR, type Vault, withLock } from "../vault/index.ts";
import type { ZipLimits } from "./_charx.ts";
import { cardToExport, type ExportCard, entriesToDrafts } from "./_draft.ts";
import { type BaseCardFile, type ExportFile, type ExportFormat, renderBook } from "./_export.ts";
import { parseBook, type SourceFormat } from "./_parse.ts";
import type { SkippedEntry } from "./_st.ts";

export interface ImportOptions {
  /** The kind every imported card gets (default `entry`). */
  kind?: string;
  /** Replace cards that already exist (default: keep them). */
  force?: boolean;
  /** Names the input in error messages. */
  filename: string;
  /** Called as cards are written: done of total. */
  onProgress?: (done: number, total: number) => void;
  zipLimits?: Partial<ZipLimits>;
}

export interface ImportResult {
  format: SourceFormat;
  kind: string;
  created: number;
  kept: number;
  overwritten: number;
  skipped: SkippedEntry[];
  warnings: string[];
}

interface Planned {
  draft: CardDraft;
  target: string;
  replaces: boolean;
}

/** Existing card files of one directory, by case-folded key (macOS and Windows fold case). */
function existingKeys(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  let names: fs.Dirent[] = [];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {}
  for (const d of names) {
    if (d.isFile() && d.name.endsWith(".md")) out.set(d.name.slice(0, -3).toLowerCase(), d.name.slice(0, -3));
  }
  return out;
}

export async function importBook(
  vault: Vault,
  input: Uint8Array | unknown,
  opts: ImportOptions,
): Promise<ImportResult> {
  const book = await parseBook(input, { filename: opts.filename, zipLimits: opts.zipLimits });
  const kind = kindByName(vault.kinds, opts.kind ?? "entry").name;
  const drafts = entriesToDrafts(book.entries, { kind, namespace: book.namespace });
  const result: ImportResult = {
    format: book.format,
    kind,
    created: 0,
    kept: 0,
    overwritten: 0,
    skipped: [...book.skipped],
    warnings: book.warnings,
  };
  await withLock(vault, async () => {
    const dir = path.dirname(cardPath(vault, kind, "probe"));
    const existing = existingKeys(dir);
    const plan: Planned[] = [];
    for (const draft of drafts) {
      const found = existing.get(draft.key.toLowerCase());
      if (found !== undefined && !opts.force) {
        result.kept++;
        continue;
      }
      const key = found ?? draft.key;
      plan.push({
        draft: { ...draft, key },
        target: cardPath(vault, kind, key),
        replaces: found !== undefined,
      });
      if (found !== undefined) result.overwritten++;
      else result.created++;
    }
    if (plan.length > 0) await applyPlan(vault, dir, plan, opts.onProgress);
  });
  return result;
}

/** Staged files are written this many at a time: file creation and fsync dominate a large import. */
const WRITE_CONCURRENCY = 32;

async function stageAll(
  stage: string,
  plan: Planned[],
  onProgress?: ImportOptions["onProgress"],
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < plan.length) {
      const i = next++;
      await writeDurably(path.join(stage, `${i}.md`), serializeCard(plan[i]!.draft));
      onProgress?.(++done, plan.length * 2);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, plan.length) }, worker));
}

async function applyPlan(
  vault: Vault,
  dir: string,
  plan: Planned[],
  onProgress?: ImportOptions["onProgress"],
) {
  const stateDir = path.join(vault.root, STATE_DIR);
  const stage = path.join(stateDir, `import-${process.pid}-${randomBytes(4).toString("hex")}`);
  const madeDirs = [stateDir, dir].filter((d) => !fs.existsSync(d));
  const moved: { staged: string; target: string; backup?: string }[] = [];
  try {
    fs.mkdirSync(path.join(stage, "old"), { recursive: true });
    await stageAll(stage, plan, onProgress);
    fs.mkdirSync(dir, { recursive: true });
    plan.forEach((p, i) => {
      const staged = path.join(stage, `${i}.md`);
      const step: (typeof moved)[number] = { staged, target: p.target };
      if (p.replaces) {
        step.backup = path.join(stage, "old", `${i}.md`);
        fs.renameSync(p.target, step.backup);
      }
      moved.push(step);
      fs.renameSync(staged, p.target);
      onProgress?.(plan.length + i + 1, plan.length * 2);
    });
    fsyncDir(dir);
  } catch (err) {
    // The staging folder holds the last copy of anything that could not be put back: keep it then.
    if (undo(moved)) fs.rmSync(stage, { recursive: true, force: true });
    for (const d of madeDirs.reverse()) fs.rmSync(d, { recursive: true, force: true });
    const where = moved.at(-1)?.target ?? stage;
    throw new LoreError(
      "io_error",
      `import failed at ${where}, nothing was changed: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  fs.rmSync(stage, { recursive: true, force: true });
}

/** Puts every moved file back where it was, newest first; a replaced card gets its old file back. */
function undo(moved: { staged: string; target: string; backup?: string }[]): boolean {
  let clean = true;
  for (const step of [...moved].reverse()) {
    try {
      if (fs.existsSync(step.staged)) {
        if (step.backup && fs.existsSync(step.backup)) fs.renameSync(step.backup, step.target);
        continue;
      }
      fs.renameSync(step.target, step.staged);
      if (step.backup) fs.renameSync(step.backup, step.target);
    } catch {
      clean = false;
    }
  }
  return clean;
}

async function writeDurably(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, "wx");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so the renames into it survive a crash (a no-op where directories cannot be opened). */
function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
}

export interface ExportOptions {
  base?: BaseCardFile;
  bookName?: string;
}

/** Every live card of the vault (all kinds, in path order), as the given format. */
export async function exportBook(
  vault: Vault,
  format: ExportFormat,
  opts: ExportOptions = {},
): Promise<ExportFile> {
  const { cards } = loadIndex(vault);
  const sources: ExportCard[] = cards.map((meta) => cardToExport(readCard(vault, meta.kind, meta.key)));
  return renderBook(sources, format, opts);
}
