// `lorecards mcp`: the MCP server for writing cards. stdio by default (stdout carries protocol only;
// messages go to stderr); `--http` serves streamable HTTP at /mcp. `--book` serves one book of the
// vault, its state still the vault's own (mcp/books.ts). The MCP SDK is loaded only here.
import pkg from "../../package.json" with { type: "json" };
import { DEFAULTS } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import { openBookOf } from "../vault/index.ts";
import { stdoutStream } from "./_out.ts";
import { defineCommand, portNumber, printJsonLine, tokenFrom, untilShutdown, vaultArg } from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { styleOptions } from "./_style-clock.ts";
import { tenantPoolOf, tenantsArgs, tenantsFileOf } from "./_tenants.ts";
import { bookArg, openVaultOf } from "./_vault.ts";

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "the MCP server for writing cards (stdio, or --http)" },
  args: {
    http: { type: "boolean", description: "serve streamable HTTP at /mcp instead of stdio" },
    // No citty defaults: they would hide whether --host or --port was given without --http.
    host: { type: "string", description: `with --http: where to listen (default ${DEFAULTS.host})` },
    port: {
      type: "string",
      description: `with --http: port (default ${DEFAULTS.mcpPort}; 0 = any free port)`,
    },
    token: {
      type: "string",
      description:
        "with --http: require this token (Authorization: Bearer or X-Lorecards-Token); mandatory off localhost",
    },
    ...storeArg,
    ...tenantsArgs(" (with --http)"),
    ...bookArg,
    ...vaultArg,
    json: {
      type: "boolean",
      description: "with --http: print one JSON line {url, vault} (and book, with --book) once listening",
    },
  },
  async run({ args }) {
    if (args.tenants !== undefined && !args.http)
      throw new LoreError("usage", "--tenants only applies with --http");
    const tenants = tenantsFileOf(args);
    if (tenants !== undefined && args.book !== undefined)
      throw new LoreError("usage", "--book does not apply with --tenants (each tenant's vault is served)");
    // A server of tenants opens each tenant's vault, never the default one.
    const home = tenants === undefined ? openVaultOf(args) : undefined;
    const vault = home && openBookOf(home, args.book, "--book");
    const name = args.book?.trim().toLowerCase();
    const book = home && name ? { name, vaultRoot: home.root } : undefined;
    const mcp = await import("../mcp/index.ts");
    const named = namedStore(args);
    const state = named === undefined ? undefined : mcp.storeState(named);
    if (!args.http) {
      if (args.host !== undefined || args.port !== undefined || args.token !== undefined || args.json) {
        throw new LoreError("usage", "--host, --port, --token and --json only apply with --http");
      }
      // The SDK writes the protocol to process.stdout: a client that leaves ends us quietly.
      stdoutStream();
      // Claude Code names its session to the stdio servers it starts (since 2.1.154): set_lore's default.
      const session = process.env.CLAUDE_CODE_SESSION_ID?.trim() || undefined;
      await mcp.serveStdio(vault!, { version: pkg.version, style: styleOptions(), state, session, book });
      return 0;
    }
    const listener = mcp.serveHttp({
      vault,
      book,
      version: pkg.version,
      host: args.host,
      port: portNumber(args.port),
      token: tokenFrom(args),
      style: styleOptions(),
      state,
      tenants,
      tenantPool: tenantPoolOf(args),
      store: named,
    });
    // Listen for the stop signals before saying "ready": a supervisor may stop us the moment it reads it.
    const stopped = untilShutdown(() => listener.stop(true));
    const serving = home ? { vault: home.root, ...(book && { book: book.name }) } : { tenants };
    if (args.json) printJsonLine({ url: `${listener.url}${mcp.MCP_PATH}`, ...serving });
    else {
      const what = home
        ? `vault ${home.root}${book ? `, book ${book.name}` : ""}`
        : `the tenants of ${tenants}`;
      process.stderr.write(`lorecards mcp: ${listener.url}${mcp.MCP_PATH} (${what})\n`);
    }
    await stopped;
    return 0;
  },
});
