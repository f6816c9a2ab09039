// `lorecards check`: the health check. Exit 1 when a card is broken or can never fire, or a symbolic
// link sits where cards live; warnings (generic keywords, title ≠ file name, dangling refs, values that
// fell back) print but exit 0. It also removes the temp files a killed write left behind. With
// --reindex it first compares every card file with the index, as `refresh --all` does.
import { checkVault } from "../check/vault.ts";
import { refreshVault } from "../recall/index.ts";
import { openVault, sweepVaultTemps } from "../vault/index.ts";
import { recallArgs } from "./_args.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const checkCommand = defineCommand({
  meta: { name: "check", description: "cards that can never fire, or fire far too often" },
  args: {
    char: recallArgs.char,
    user: recallArgs.user,
    reindex: {
      type: "boolean",
      description: "first compare every card file with the index (catches edits made in place)",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    sweepVaultTemps(vault);
    if (args.reindex) refreshVault(vault, { all: true });
    const { cards, errors, warnings, findings } = checkVault(vault, { char: args.char, user: args.user });
    if (args.json) printJson({ cards, errors, warnings, findings });
    else if (findings.length === 0) print(`${cards} cards, all healthy.`);
    else {
      const lines = findings.map(
        (f) => `${f.severity === "error" ? "error  " : "warning"}  ${f.card}: ${f.detail}`,
      );
      lines.push(`${cards} cards: ${errors} error(s), ${warnings} warning(s).`);
      print(lines.join("\n"));
    }
    return errors > 0 ? 1 : 0;
  },
});
