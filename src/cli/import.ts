// `lorecards import FILE [--kind K] [--force] [--json]`: a lorebook (SillyTavern World Info, RisuAI,
// NovelAI, Agnai, KoboldAI) or a character card in.
import fs from "node:fs";
import { describeError, LoreError } from "../errors.ts";
import { type ImportResult, importBook } from "../interop/index.ts";
import { openVault } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

/** Larger inputs are refused before reading: no lorebook is this big, a mistaken path might be. */
const MAX_INPUT_BYTES = 512 * 1024 * 1024;

export function readInput(file: string): Uint8Array {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new LoreError("not_found", `${file}: no such file`, { cause: err });
  }
  if (stat.isDirectory()) throw new LoreError("usage", `${file}: is a directory, not a file`);
  const size = stat.size;
  if (size > MAX_INPUT_BYTES)
    throw new LoreError("too_large", `${file}: ${size} bytes is more than any lorebook`);
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (err) {
    throw new LoreError("io_error", `${file}: cannot read (${describeError(err)})`, { cause: err });
  }
}

/** A one-line bar (on stderr), redrawn in place only when the percentage moves. */
export function progressBar(stream: { write(text: string): unknown }): {
  update(done: number, total: number): void;
  end(): void;
} {
  let shown = -1;
  return {
    update(done, total) {
      const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
      if (pct === shown) return;
      shown = pct;
      const width = 30;
      const fill = Math.round((pct / 100) * width);
      stream.write(`\r[${"#".repeat(fill)}${".".repeat(width - fill)}] ${pct}%`);
    },
    end() {
      if (shown >= 0) stream.write("\n");
    },
  };
}

export function summaryLine(file: string, r: ImportResult): string {
  const counts = `${r.created} created, ${r.kept} kept, ${r.overwritten} overwritten, ${r.skipped.length} skipped`;
  return `imported ${file} (${r.format}) into ${r.kind}: ${counts}`;
}

/** The write checks' warnings (README "Write checks"), the first CHECKS_SHOWN of them; --json has all. */
export function checkLines(checks: ImportResult["checks"]): string[] {
  const CHECKS_SHOWN = 20;
  if (checks.length === 0) return [];
  const lines = [`  write checks: ${checks.length} ${checks.length === 1 ? "warning" : "warnings"}`];
  for (const c of checks.slice(0, CHECKS_SHOWN)) lines.push(`    ${c.card ?? "caps"}: ${c.detail}`);
  if (checks.length > CHECKS_SHOWN)
    lines.push(`    and ${checks.length - CHECKS_SHOWN} more (--json lists them)`);
  return lines;
}

export const importCommand = defineCommand({
  meta: {
    name: "import",
    description:
      "import a lorebook (SillyTavern, RisuAI, NovelAI, Agnai, KoboldAI) or a character card (JSON, PNG, CHARX)",
  },
  args: {
    file: { type: "positional", required: true, description: "the book or card to import" },
    kind: { type: "string", description: "the kind every imported card gets (default: entry)" },
    force: { type: "boolean", description: "overwrite cards that already exist (default: keep them)" },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const bytes = readInput(args.file);
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    const bar = process.stderr.isTTY && !args.json ? progressBar(process.stderr) : undefined;
    let result: ImportResult;
    try {
      result = await importBook(vault, bytes, {
        kind: args.kind,
        force: args.force === true,
        filename: args.file,
        onProgress: bar?.update,
      });
    } finally {
      bar?.end();
    }
    for (const w of result.warnings) process.stderr.write(`lorecards: ${args.file}: ${w}\n`);
    if (args.json) {
      const { created, kept, overwritten, skipped, format, kind, book, character, notes, checks } = result;
      printJson({ created, kept, overwritten, skipped, format, kind, book, character, notes, checks });
      return 0;
    }
    const lines = [summaryLine(args.file, result)];
    for (const s of result.skipped) lines.push(`  skipped ${s.title}: ${s.reason}`);
    // What the import leaves to the person: vault settings it never writes itself.
    for (const note of result.notes) lines.push(`  ${note}`);
    lines.push(...checkLines(result.checks));
    print(lines.join("\n"));
    return 0;
  },
});
