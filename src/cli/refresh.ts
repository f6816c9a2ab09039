// `lorecards refresh [--all]`: bring the vault's index and matcher snapshot up to date now. A server
// runs it in a process of its own, so scans and rebuilds never share a thread with requests; people run
// it after bulk edits made outside lorecards (README "When an edit is seen").
import { refreshVault } from "../recall/index.ts";
import { openVault } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const refreshCommand = defineCommand({
  meta: { name: "refresh", description: "bring the index and matcher up to date now" },
  args: {
    all: {
      type: "boolean",
      description: "compare every card file, not only the folders that changed (catches edits made in place)",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    const report = refreshVault(vault, { all: args.all === true });
    if (args.json) printJson(report);
    else print(`${report.files} card files, ${report.parsed} read again; the index is up to date.`);
    return 0;
  },
});
