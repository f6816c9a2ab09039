/**
 * The vault's folder of lorecards' own state (the index, conversations, history, backups, the hook's
 * socket), in a file of its own: the hook's client finds a running server's socket in it before it
 * loads anything else (cli/hook-client.ts).
 */
export const STATE_DIR = ".lorecards";
