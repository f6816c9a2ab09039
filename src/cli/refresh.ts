// `lorecards refresh [--all]`: bring the vault's index and matcher snapshot up to date now. A server
// runs it in a process of its own, so scans and rebuilds never share a thread with requests; people run
// it after bulk edits made outside lorecards (docs/CARDS.md "When an edit is seen").
// `lorecards refresh --watch`: the keeper of a large vault (vault/keeper.ts), which the hook and `try`
// start in the background; it stays while it is asked for, and leaves after --idle seconds without.
// Once up, it answers the hook over the vault's socket as a running gateway does (cli/_hook-server.ts),
// on an engine of its own that its watcher keeps current: a prompt then costs the hook a compiled
// client's start, not a cold load of the index, the matcher and the stores.
import { type Engine, openEngine, refreshVault } from "../recall/index.ts";
import { IDLE_MS, openVault, type RunningKeeper, runKeeper, type Vault } from "../vault/index.ts";
import { type HookServer, startHookServer } from "./_hook-server.ts";
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
      await keep(vault, wholeNumber(args.idle, "--idle"));
      return 0;
    }
    const report = refreshVault(vault, { all: args.all === true });
    if (args.json) printJson(report);
    else print(`${report.files} card files, ${report.parsed} read again; the index is up to date.`);
    return 0;
  },
});

/** How often a keeper whose vault's socket another server holds tries to take it over. */
const CLAIM_EVERY_MS = 2000;

/**
 * The keeper (vault/keeper.ts), answering hooks once it is up; resolves when it has left. While another
 * server holds the vault's socket (a gateway, or a keeper that is leaving because this one replaced
 * it), it tries again now and then, so hooks are answered again once that one is gone.
 */
async function keep(vault: Vault, idle: number | undefined): Promise<void> {
  let engine: Engine | undefined;
  let hooks: HookServer | undefined;
  let claiming: Promise<void> | undefined;
  let retry: ReturnType<typeof setInterval> | undefined;
  const serve = (keeper: RunningKeeper) => {
    claiming ??= startHookServer({
      vaultRoot: vault.root,
      engine: async () => {
        engine ??= await openEngine(vault.root, {
          watch: true,
          watcher: false,
          recheckMs: Number.POSITIVE_INFINITY,
          persist: true,
        });
        return engine;
      },
      catchUp: () => keeper.caughtUp(),
      makeFolder: false,
      // Started by a hook, a keeper's output goes nowhere; a keeper that cannot answer hooks leaves
      // them to run on their own, as they did before, and tries again.
      warn: () => {},
    })
      .then((server) => {
        hooks = server;
        if (server) clearInterval(retry);
      })
      .finally(() => {
        claiming = undefined;
      });
  };
  await runKeeper(vault, {
    compare: (paths) => {
      refreshVault(vault, paths === "all" ? { all: true } : { touched: paths });
      // The engine's own watcher and rechecks are off: this one names every change to it.
      engine?.invalidate(paths === "all" ? undefined : paths);
    },
    ...(idle !== undefined && { idleMs: Math.max(1, idle) * 1000 }),
    onReady: (keeper) => {
      process.stderr.write(`lorecards: keeping ${vault.root} up to date\n`);
      serve(keeper);
      retry = setInterval(() => hooks ?? serve(keeper), CLAIM_EVERY_MS);
    },
  });
  clearInterval(retry);
  await claiming;
  await hooks?.close();
  engine?.close();
}
