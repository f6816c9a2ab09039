/**
 * How long one test may run before it counts as hung: far beyond what a busy machine needs, since no
 * test is bounded by how long it takes. Bun 1.4.4 ignores bunfig's `timeout`, so it is passed as
 * `--timeout` by the scripts (package.json, test/tiers.ts) and set by test/preload.ts for a run of one
 * file by hand (a preload's setDefaultTimeout reaches only the first file of a run).
 */
export const HANG_MS = 180_000;
