// `lorecards import FILE [--kind K] [--force] [--json]`: a lorebook (SillyTavern World Info, RisuAI,
// NovelAI, Agnai, KoboldAI) or a character card in.
import { type BookImported, type ImportResult, importIntoBook } from "../interop/index.ts";
import { openVault, recoverImports, type Vault } from "../vault/index.ts";
import { readInput } from "./_files.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

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

export function summaryLine(file: string, r: ImportResult & Partial<Pick<BookImported, "into">>): string {
  const counts = `${r.created} created, ${r.kept} kept, ${r.overwritten} overwritten, ${r.skipped.length} skipped`;
  // Into the vault's own cards, the line names no book, as before books.
  const into = r.into === undefined || r.into.name === "main" ? "" : ` into ${intoText(r.into)},`;
  return `imported ${file} (${r.format})${into} as ${r.kind} cards: ${counts}`;
}

function intoText(into: BookImported["into"]): string {
  const made = into.made ? " (new)" : "";
  const bound = into.character === undefined ? "" : `, bound to ${into.character}`;
  return `the book ${into.name}${made}${bound}`;
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

/**
 * What an interrupted import (Ctrl-C, a stop) leaves, settled now, before the process ends: an import
 * stopped while it staged its cards is rolled back, one whose every card was staged is finished
 * (vault/, the same rule a later command applies to an import that was killed outright). The import
 * holds the vault lock, so nothing else writes meanwhile.
 */
function interrupted(vault: Vault, done: boolean): string {
  if (done) return "interrupted after the import had finished: every card it wrote is in";
  const finished = recoverImports(vault);
  return finished > 0
    ? "interrupted once every card was staged: the import was finished, every card is in"
    : "interrupted: nothing was imported, the vault was rolled back and is as it was";
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
    book: {
      type: "string",
      description:
        "the book to import into (main: the vault's own cards; default: a character card's character's book, bound to it, else a book named after the lorebook)",
      valueHint: "NAME",
    },
    force: { type: "boolean", description: "overwrite cards that already exist (default: keep them)" },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const bytes = readInput(args.file);
    const root = openVault(vaultPath(args), { create: isDefaultVault(args) }).root;
    // The book's folder, once the file said which book it goes into: an interruption settles that one.
    let vault: Vault | undefined;
    const bar = process.stderr.isTTY && !args.json ? progressBar(process.stderr) : undefined;
    let done = false;
    const stop = (signal: NodeJS.Signals) => {
      bar?.end();
      const what = vault ? interrupted(vault, done) : "interrupted: nothing was imported";
      process.stderr.write(`lorecards: ${args.file}: ${what}\n`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    let result: BookImported;
    try {
      result = await importIntoBook(root, bytes, {
        kind: args.kind,
        force: args.force === true,
        filename: args.file,
        onProgress: bar?.update,
        book: args.book,
        onTarget: (at) => {
          vault = openVault(at);
        },
      });
      done = true;
    } finally {
      bar?.end();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
    for (const w of result.warnings) process.stderr.write(`lorecards: ${args.file}: ${w}\n`);
    if (args.json) {
      const { created, kept, overwritten, skipped, format, kind, book, character, notes, checks, into } =
        result;
      printJson({ created, kept, overwritten, skipped, format, kind, book, character, notes, checks, into });
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
