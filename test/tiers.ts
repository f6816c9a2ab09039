/**
 * The test tiers a developer can name (CONTRIBUTING.md, "Tests"), run as `bun test/tiers.ts TIER
 * [more bun test arguments]`:
 *   unit  everything that needs no binary, no browser and no real client, files run side by side
 *   e2e   the compiled binary with real clients, headless Chromium and recorded traffic (built first)
 *   fuzz  the property tests
 * `npm test` runs all three in one `bun test`, as CI does. Path filters given after the tier narrow
 * it (`bun test/tiers.ts unit test/card`); for e2e and fuzz they replace the tier's folders.
 */
import { HANG_MS } from "./support/hang.ts";

const NO_BINARY = [
  "--path-ignore-patterns=test/e2e/**",
  "--path-ignore-patterns=test/fuzz/**",
  "--path-ignore-patterns=test/conformance/lorebooks.test.ts",
];

const TIERS: Record<string, { paths: string[]; flags: string[] }> = {
  // Most of their time is spent waiting on the disk and on child processes, so four at once pay off
  // even on two cores.
  unit: { paths: [], flags: ["--parallel=4", ...NO_BINARY] },
  e2e: { paths: ["test/e2e/", "test/conformance/lorebooks.test.ts"], flags: [] },
  fuzz: { paths: ["test/fuzz/"], flags: [] },
};

const [tier = "", ...rest] = process.argv.slice(2);
const chosen = TIERS[tier];
if (!chosen) {
  console.error(`usage: bun test/tiers.ts ${Object.keys(TIERS).join("|")} [bun test arguments]`);
  process.exit(2);
}
const filters = rest.filter((a) => !a.startsWith("-"));
const paths = tier !== "unit" && filters.length > 0 ? [] : chosen.paths;
const proc = Bun.spawn(
  [process.execPath, "test", `--timeout=${HANG_MS}`, ...chosen.flags, ...paths, ...rest],
  {
    stdio: ["inherit", "inherit", "inherit"],
    env: { ...process.env, LORECARDS_TIER: tier },
  },
);
process.exit(await proc.exited);
