// `lorecards refresh [--all]`: bring the vault's index and matcher snapshot up to date now. A server
// runs it in a process of its own, so scans and rebuilds never share a thread with requests; people run
// it after bulk edits made outside lorecards (docs/CARDS.md "When an edit is seen").
// `lorecards refresh --watch`: the keeper of a large vault (vault/keeper.ts), which the hook and `try`
// start in the background; it stays while it is asked for, and leaves after --idle seconds without.
import { refreshVault } from "../recall/index.ts";
import { IDLE_MS, openVault, runKeeper } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg, wholeNumber } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const refreshCommand = defineCommand({
  meta: { name: "refresh", description: "bring the index and matcher up to date now" },
  args: {
    all: {
      type: "boolean",
      description: "compare every card file, not only the folders that changed (catches edits made in place)",
    },
    watch: {
      type: "boolean",
      description: "keep the index up to date as files change, until idle (the keeper the hook starts)",
    },
    idle: {
      type: "string",
      description: `with --watch: seconds without a request before it leaves (default ${IDLE_MS / 1000})`,
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    if (args.watch) {
      const idle = wholeNumber(args.idle, "--idle");
      await runKeeper(vault, {
        compare: (paths) => refreshVault(vault, paths === "all" ? { all: true } : { touched: paths }),
        ...(idle !== undefined && { idleMs: Math.max(1, idle) * 1000 }),
        onReady: () => process.stderr.write(`lorecards: keeping ${vault.root} up to date\n`),
      });
      return 0;
    }
    const report = refreshVault(vault, { all: args.all === true });
    if (args.json) printJson(report);
    else print(`${report.files} card files, ${report.parsed} read again; the index is up to date.`);
    return 0;
  },
});
