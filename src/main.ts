// Entry point of the `lorecards` binary: run the CLI and exit with its code. Nothing else lives here.
// Server commands (gateway, ui, mcp) resolve only when they shut down.
import { runCli } from "./cli/index.ts";

// `lorecards list --json | head -1`: the reader may leave before we finish writing. That is the
// reader's choice, not our failure: stop quietly instead of printing a broken-pipe trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

process.exitCode = await runCli(process.argv.slice(2));
