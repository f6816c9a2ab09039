// `lorecards check`: the health check. Exit 1 when a card is broken or can never fire, or a symbolic
// link sits where cards live; warnings (generic keywords, title ≠ file name, dangling refs, values that
// fell back) print but exit 0. It also removes the temp files a killed write left behind. With
// --reindex it first compares every card file with the index, as `refresh --all` does. A last section
// says how the cards fare in index recalls (check/recall-health.ts); it never changes the exit code.

import { existsSync } from "node:fs";
import { describeHealth, recallHealth } from "../check/recall-health.ts";
import { checkVault } from "../check/vault.ts";
import { describeError } from "../errors.ts";
import { refreshVault } from "../recall/index.ts";
import { type HealthReport, openStore, statePath, stateUrl } from "../state/index.ts";
import { describeStyleSettings, styleSettingsFromEnv } from "../style/settings.ts";
import { type Census, sweepVaultTemps, type Vault } from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { recallArgs } from "./_args.ts";
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
    sweepVaultTemps(vault);
    if (args.reindex) refreshVault(vault, { all: true });
    const names = { char: args.char, user: args.user };
    const { cards, errors, warnings, findings, style, files } = checkVault(
      vault,
      names,
      styleSettingsFromEnv(process.env),
    );
    const recall = await recallSection(vault, namedStore(args));
    if (args.json)
      printJson({
        cards,
        errors,
        warnings,
        findings,
        files: toWire(files),
        style: toWire(style),
        recall: toWire(recall.report),
      });
    else {
      const lines =
        findings.length === 0
          ? [`${cards} cards, all healthy.`]
          : [
              ...findings.map(
                (f) => `${f.severity === "error" ? "error  " : "warning"}  ${f.card}: ${f.detail}`,
              ),
              `${cards} cards: ${errors} error(s), ${warnings} warning(s).`,
            ];
      const styleLines = describeStyleSettings(style, { onlySet: true });
      print(
        [
          ...lines,
          ...describeFiles(files),
          ...(styleLines.length > 0
            ? ["", "Style memory settings:", ...styleLines.map((l) => `  ${l}`)]
            : []),
          ...(recall.lines.length > 0 ? ["", ...recall.lines] : []),
        ].join("\n"),
      );
    }
    return errors > 0 ? 1 : 0;
  },
});

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
