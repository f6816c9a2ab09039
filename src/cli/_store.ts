/**
 * Where a command keeps conversation state: `--store`, then $LORECARDS_STORE, then the vault's own
 * `.lorecards/state.db`. A URL naming a server (`postgres://…`) is how several processes (gateways
 * behind a load balancer, the editor, MCP, the hook) share one state; the variable lets a hook, which
 * Claude Code starts with no flags of ours, use it too. Loads nothing: the default is the caller's.
 */
export const storeArg = {
  store: {
    type: "string",
    description:
      "where conversation state lives: sqlite:<file>, memory:, or postgres://user@host:port/database to share it between processes (default: $LORECARDS_STORE, then the vault's .lorecards/state.db)",
    valueHint: "URL",
  },
} as const;

/** The store named by the flag or the environment; undefined: the vault's own state.db. */
export function namedStore(
  args: { store?: string },
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  return [args.store, env.LORECARDS_STORE].find((v) => v !== undefined && v.trim() !== "")?.trim();
}
