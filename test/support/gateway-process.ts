/**
 * A gateway in its own process, for tests that need two of them on one vault or time one:
 * `bun test/support/gateway-process.ts <vault> <upstream> [--stretches]`. Prints its base URL on the
 * first line of stdout and runs until killed.
 *
 * With `--stretches`, it also says on stderr (`stretch <ms>`) each time the process spent more than
 * 5 ms of CPU between two ticks of a 1 ms timer, which fires once per turn of the event loop at most:
 * about the longest a request that just arrived waits for the one being worked on, measured in CPU
 * time, so a machine busy with other work does not stretch it (a wall-clock wait does).
 */

import { startGateway } from "../../src/gateway/index.ts";

const [vaultRoot, upstream, flag] = process.argv.slice(2);
if (!vaultRoot || !upstream) throw new Error("usage: gateway-process.ts <vault> <upstream> [--stretches]");
const gw = startGateway({ vaultRoot, upstream, port: 0, reinjectAfter: 100, engine: { watch: false } });
process.stdout.write(`${gw.url}\n`);
process.on("SIGTERM", () => void gw.close().then(() => process.exit(0)));

if (flag === "--stretches") {
  let last = process.cpuUsage();
  const tick = () => {
    const now = process.cpuUsage();
    const ms = (now.user - last.user + now.system - last.system) / 1000;
    if (ms > 5) process.stderr.write(`stretch ${ms.toFixed(1)}\n`);
    last = process.cpuUsage();
    // A timer, not setImmediate: an idle gateway then sleeps between ticks instead of spinning.
    setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
}
