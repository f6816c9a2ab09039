/**
 * A gateway in its own process, for tests that need two of them on one vault or time one:
 * `bun test/support/gateway-process.ts <vault> <upstream> [--stretches]`. Prints its base URL on the
 * first line of stdout and runs until killed.
 *
 * With `--stretches`, it also says on stderr (`stretch <ms>`) each time it worked more than 5 ms of
 * CPU without letting another request in, and answers SIGUSR2 with `pass <ms>`, what one pass over a
 * chat body costs it at that moment (stretch.ts).
 */

import { startGateway } from "../../src/gateway/index.ts";
import { passCost, watchStretches } from "./stretch.ts";

const [vaultRoot, upstream, flag] = process.argv.slice(2);
if (!vaultRoot || !upstream) throw new Error("usage: gateway-process.ts <vault> <upstream> [--stretches]");
const gw = startGateway({ vaultRoot, upstream, port: 0, reinjectAfter: 100, engine: { watch: false } });
process.stdout.write(`${gw.url}\n`);
process.on("SIGTERM", () => void gw.close().then(() => process.exit(0)));

if (flag === "--stretches") {
  watchStretches((ms) => process.stderr.write(`stretch ${ms.toFixed(1)}\n`));
  // Said after the next tick, so that the stretch the measuring itself makes is reported before it.
  process.on("SIGUSR2", () => {
    const ms = passCost();
    setTimeout(() => process.stderr.write(`pass ${ms.toFixed(2)}\n`), 5);
  });
}
