/**
 * Runs one test tier (test/support/tiers.ts): `bun test/tiers.ts unit|e2e|fuzz [bun test arguments]`.
 *   unit  everything that needs no binary, no browser, no real client and no real server, files run
 *         side by side
 *   e2e   the compiled binary with real clients (installed first, test/package.json), headless
 *         Chromium and recorded traffic (the binary built first), and the stores that need a real
 *         server (Postgres)
 *   fuzz  the property tests
 * `npm test` runs all three in one `bun test`, as CI does. Path filters given after the tier narrow
 * it (`bun test/tiers.ts unit test/card`); for e2e and fuzz they replace the tier's folders.
 */
import { installClients } from "./support/clients.ts";
import { bunTestArgs, TIERS } from "./support/tiers.ts";

const [name = "", ...rest] = process.argv.slice(2);
if (!(name in TIERS)) {
  console.error(`usage: bun test/tiers.ts ${Object.keys(TIERS).join("|")} [bun test arguments]`);
  process.exit(2);
}
// The end-to-end tier runs the real clients: installed first when missing (test/package.json).
if (name === "e2e" && installClients() !== 0) process.exit(1);
const proc = Bun.spawn([process.execPath, ...bunTestArgs(name as keyof typeof TIERS, rest)], {
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...process.env, LORECARDS_TIER: name },
});
process.exit(await proc.exited);
