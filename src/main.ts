// Entry point of the `lorecards` binary: run the CLI and exit with its code. Nothing else lives here.
// Server commands (gateway, ui, mcp) resolve only when they shut down.
import { runCli } from "./cli/index.ts";

process.exitCode = await runCli(process.argv.slice(2));
