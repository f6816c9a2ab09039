/**
 * The fake upstream in its own process, for tests that time a gateway: the upstream's own work on a
 * huge body (reading, parsing it to answer) then never stalls the test's clock.
 * `bun test/support/fake-upstream-process.ts` prints its base URL on the first line of stdout and runs
 * until killed.
 */

import { startFakeUpstream } from "./fake-upstream.ts";

const upstream = startFakeUpstream();
process.stdout.write(`${upstream.url}\n`);
process.on("SIGTERM", () => void upstream.close().then(() => process.exit(0)));
