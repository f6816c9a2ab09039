// Entry point of the `lorecards` binary: run the CLI and exit with its code. Nothing else lives here.
// Server commands (gateway, ui, mcp) resolve only when they shut down. A hook asks a running server on
// its vault first (cli/hook-client.ts), before the CLI is loaded at all: when one answers, that is all.
import { askedServer } from "./cli/hook-client.ts";

const argv = process.argv.slice(2);
if (await askedServer(argv)) process.exitCode = 0;
else {
  const { runCli } = await import("./cli/index.ts");
  process.exitCode = await runCli(argv);
}
