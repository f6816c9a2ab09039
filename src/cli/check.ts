// `lorecards check`: the health check. Exit 1 when a card is broken or can never fire, or a symbolic
// link sits where cards live; warnings (generic keywords, title ≠ file name, dangling refs, values that
// fell back) print but exit 0. It also removes the temp files a killed write left behind. With
// --reindex it first compares every card file with the index, as `refresh --all` does. A last section
// says how the cards fare in index recalls (check/recall-health.ts); it never changes the exit code.
// Without --book it checks the vault's own cards and then every book of it (docs/BOOKS.md), each in a
// section of its own: an imported book is read by default, so it is checked by default too.

import { existsSync } from "node:fs";
import path from "node:path";
import { describeHealth, recallHealth } from "../check/recall-health.ts";
import { checkVault, type VaultCheck } from "../check/vault.ts";
import { describeError } from "../errors.ts";
import { refreshVault } from "../recall/index.ts";
import { type HealthReport, openStore, statePath, stateUrl } from "../state/index.ts";
import { describeStyleSettings, styleSettingsFromEnv } from "../style/settings.ts";
import {
  BOOKS_DIR,
  type Census,
  MAIN_BOOK,
  openVault,
  readBooks,
  sweepVaultTemps,
  type Vault,
} from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { recallArgs } from "./_args.ts";
import { terminalProgress } from "./_progress.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { bookArg, openBook } from "./_vault.ts";

export const checkCommand = defineCommand({
  meta: { name: "check", description: "cards that can never fire, or fire far too often" },
  args: {
    char: recallArgs.char,
    user: recallArgs.user,
    reindex: {
      type: "boolean",
      description: "first compare every card file with the index (catches edits made in place)",
    },
    ...storeArg,
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openBook(args);
    const names = { char: args.char, user: args.user };
    const checkOne = (v: Vault): VaultCheck => {
      sweepVaultTemps(v);
      // A line on a terminal while a large vault is read; scripts and pipes see none.
      if (args.reindex) {
        const progress = terminalProgress("comparing card files");
        refreshVault(v, { all: true, ...(progress && { progress }) });
        progress?.end();
      }
      const progress = terminalProgress("checking cards");
      const report = checkVault(v, names, styleSettingsFromEnv(process.env), progress);
      progress?.end();
      return report;
    };
    const main = checkOne(vault);
    const books = args.book
      ? []
      : readBooks(vault.root)
          .filter((b) => b.name !== MAIN_BOOK)
          .map((b) => ({ name: b.name, root: b.root, report: checkOne(openVault(b.root)) }));
    const recall = await recallSection(vault, namedStore(args));
    if (args.json)
      printJson({
        ...reportJson(main),
        style: toWire(main.style),
        recall: toWire(recall.report),
        ...(books.length > 0 ? { books: books.map((b) => ({ book: b.name, ...reportJson(b.report) })) } : {}),
      });
    else {
      const styleLines = describeStyleSettings(main.style, { onlySet: true });
      print(
        [
          ...describeReport(main),
          ...books.flatMap((b) => [
            "",
            `Book ${b.name} (${BOOKS_DIR}/${path.basename(b.root)}/):`,
            ...describeReport(b.report).map((l) => (l === "" ? l : `  ${l}`)),
          ]),
          ...(styleLines.length > 0
            ? ["", "Style memory settings:", ...styleLines.map((l) => `  ${l}`)]
            : []),
          ...(recall.lines.length > 0 ? ["", ...recall.lines] : []),
        ].join("\n"),
      );
    }
    return [main, ...books.map((b) => b.report)].some((r) => r.errors > 0) ? 1 : 0;
  },
});

/** One vault's (or book's) check as `--json` prints it. */
function reportJson(r: VaultCheck) {
  const { cards, errors, warnings, findings, files } = r;
  return { cards, errors, warnings, findings, files: toWire(files) };
}

/** One vault's (or book's) findings, its count line, and the files that are no cards. */
function describeReport(r: VaultCheck): string[] {
  const lines =
    r.findings.length === 0
      ? [`${r.cards} cards, all healthy.`]
      : [
          ...r.findings.map(
            (f) => `${f.severity === "error" ? "error  " : "warning"}  ${f.card}: ${f.detail}`,
          ),
          `${r.cards} cards: ${r.errors} error(s), ${r.warnings} warning(s).`,
        ];
  return [...lines, ...describeFiles(r.files)];
}

/** The files that are no cards, grouped by reason, and the notes that have no frontmatter. */
function describeFiles(files: Census): string[] {
  const lines: string[] = [];
  if (files.bare.length > 0) {
    const some = files.bare.slice(0, 3).join(", ");
    const more = files.bare.length > 3 ? ` and ${files.bare.length - 3} more` : "";
    lines.push(
      `${files.bare.length} card file(s) have no frontmatter, so each fires on its file name only: ${some}${more}`,
    );
  }
  const byReason = new Map<string, string[]>();
  for (const f of files.skipped) byReason.set(f.reason, [...(byReason.get(f.reason) ?? []), f.path]);
  if (byReason.size > 0) lines.push(`Not cards (${files.skipped.length}):`);
  for (const [reason, paths] of byReason) {
    const more = paths.length > 5 ? ` and ${paths.length - 5} more` : "";
    lines.push(`  ${reason}: ${paths.slice(0, 5).join(", ")}${more}`);
  }
  return lines.length > 0 ? ["", ...lines] : [];
}

/**
 * The recall section: in words only once there are index recalls to judge by (`stats --cards` says
 * how to get some). State that cannot be read costs the section, never the check, and a vault with no
 * state file yet gets none made by a check.
 */
async function recallSection(vault: Vault, named: string | undefined) {
  const section = (report: HealthReport) => ({
    report,
    lines: report.recalls === 0 ? [] : describeHealth(report),
  });
  try {
    if (named === undefined && !existsSync(statePath(vault.root)))
      return section(await recallHealth(vault, null, Date.now()));
    const store = await openStore(named ?? stateUrl(vault.root));
    try {
      return section(await recallHealth(vault, store, Date.now()));
    } finally {
      await store.close();
    }
  } catch (err) {
    return {
      report: null,
      lines: [`Recall health not read: ${describeError(err)}`],
    };
  }
}
