// `lorecards export OUT [--format F] [--card FILE] [--json]`: the vault as a lorebook or a card.
import path from "node:path";
import { LoreError } from "../errors.ts";
import { EXPORT_FORMATS, type ExportFormat, exportBook } from "../interop/index.ts";
import { atomicWrite, MAIN_BOOK, readBooks } from "../vault/index.ts";
import { existingFolder, readInput } from "./_files.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, openBook, vaultPath } from "./_vault.ts";

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
    existingFolder(path.dirname(path.resolve(args.out)));
    const base = args.card === undefined ? undefined : { bytes: readInput(args.card), filename: args.card };
    const vault = openBook(args);
    const file = await exportBook(vault, format, { base });
    atomicWrite(args.out, file.bytes);
    const { cards, skipped } = file;
    if (args.json) printJson({ out: args.out, format, cards, bytes: file.bytes.length, skipped });
    else {
      const lines = [`exported ${cards} cards${fromWhich(args)} to ${args.out} (${format})`];
      for (const s of skipped) lines.push(`  skipped ${s.title}: ${s.reason}`);
      print(lines.join("\n"));
    }
    return 0;
  },
});

/**
 * Which book the cards came from, said when the vault has books besides its own cards: an export
 * without --book takes only the vault's own, which a person who just imported a book may not expect.
 */
function fromWhich(args: { vault?: string; book?: string }): string {
  const name = args.book?.trim().toLowerCase();
  if (name && name !== MAIN_BOOK) return ` of the book ${name}`;
  const others = readBooks(vaultPath(args)).filter((b) => b.name !== MAIN_BOOK);
  if (others.length === 0) return "";
  return ` of the vault's own cards (--book NAME for one of its books: ${others.map((b) => b.name).join(", ")})`;
}
