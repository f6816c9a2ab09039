/**
 * A gateway in its own process, for tests that need two of them on one vault:
 * `bun test/support/gateway-process.ts <vault> <upstream>`. Prints its base URL on the first line of
 * stdout and runs until killed.
 */

import { startGateway } from "../../src/gateway/index.ts";

const [vaultRoot, upstream] = process.argv.slice(2);
if (!vaultRoot || !upstream) throw new Error("usage: gateway-process.ts <vault> <upstream>");
const gw = startGateway({ vaultRoot, upstream, port: 0, reinjectAfter: 100, engine: { watch: false } });
process.stdout.write(`${gw.url}\n`);
process.on("SIGTERM", () => void gw.close().then(() => process.exit(0)));
