// `lorecards check`: the health check. Exit 1 when a card is broken or can never fire, or a symbolic
// link sits where cards live; warnings (generic keywords, title ≠ file name, dangling refs, values that
// fell back) print but exit 0. It also removes the temp files a killed write left behind.
import { defineCommand } from "citty";
import { checkCards } from "../check/index.ts";
import { findLinks, loadIndex, openVault, sweepVaultTemps } from "../vault/index.ts";
import { isDefaultVault, jsonArg, print, printJson, vaultArg, vaultPath } from "./_shared.ts";

export const checkCommand = defineCommand({
  meta: { name: "check", description: "cards that can never fire, or fire far too often" },
  args: { ...vaultArg, ...jsonArg },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    sweepVaultTemps(vault);
    const { cards, broken, warnings } = loadIndex(vault);
    const findings = checkCards(cards, broken, warnings, findLinks(vault));
    const errors = findings.filter((f) => f.severity === "error").length;
    if (args.json) printJson({ cards: cards.length, errors, warnings: findings.length - errors, findings });
    else if (findings.length === 0) print(`${cards.length} cards, all healthy.`);
    else {
      const lines = findings.map(
        (f) => `${f.severity === "error" ? "error  " : "warning"}  ${f.card}: ${f.detail}`,
      );
      lines.push(`${cards.length} cards: ${errors} error(s), ${findings.length - errors} warning(s).`);
      print(lines.join("\n"));
    }
    return errors > 0 ? 1 : 0;
  },
});
