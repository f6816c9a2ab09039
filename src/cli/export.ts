// `lorecards export OUT [--format F] [--card FILE] [--json]`: the vault as a lorebook or a card.
import fs from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { EXPORT_FORMATS, type ExportFormat, exportBook } from "../interop/index.ts";
import { atomicWrite } from "../vault/index.ts";
import { readInput } from "./_files.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, openBook } from "./_vault.ts";

/** Without --format, the output's extension decides; anything else is a SillyTavern book. */
export function formatFor(out: string, flag?: ExportFormat): ExportFormat {
  if (flag !== undefined) return flag;
  const lower = out.toLowerCase();
  if (lower.endsWith(".png")) return "card-png";
  if (lower.endsWith(".charx")) return "charx";
  return "st";
}

export const exportCommand = defineCommand({
  meta: { name: "export", description: "export the vault as a lorebook or a character card" },
  args: {
    out: { type: "positional", required: true, description: "the file to write" },
    // An enum: citty refuses any other value as a usage error, naming the formats.
    format: {
      type: "enum",
      options: [...EXPORT_FORMATS] as ExportFormat[],
      description: "the format (default: from OUT's extension, else st)",
    },
    card: { type: "string", description: "a base card (JSON, PNG or CHARX) to carry the book" },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const format = formatFor(args.out, args.format);
    if (args.card !== undefined && (format === "st" || format === "lorebook_v3")) {
      throw new LoreError("usage", `--card only applies to card-json, card-png and charx, not ${format}`);
    }
    refuseMissingFolder(args.out);
    const base = args.card === undefined ? undefined : { bytes: readInput(args.card), filename: args.card };
    const vault = openBook(args);
    const file = await exportBook(vault, format, { base });
    atomicWrite(args.out, file.bytes);
    const { cards, skipped } = file;
    if (args.json) printJson({ out: args.out, format, cards, bytes: file.bytes.length, skipped });
    else {
      const lines = [`exported ${cards} cards to ${args.out} (${format})`];
      for (const s of skipped) lines.push(`  skipped ${s.title}: ${s.reason}`);
      print(lines.join("\n"));
    }
    return 0;
  },
});

/** The folder OUT goes in must be there: said with its name, before any work (not the temp file's). */
function refuseMissingFolder(out: string): void {
  const folder = path.dirname(path.resolve(out));
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (stat === undefined)
    throw new LoreError(
      "not_found",
      `the folder ${folder} does not exist; make it first (mkdir -p ${folder})`,
    );
  if (!stat.isDirectory()) throw new LoreError("invalid_input", `${folder} is not a folder`);
}
