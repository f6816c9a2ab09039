/**
 * The test tiers (CONTRIBUTING.md, "Tests"), as data: which files each runs and how. test/tiers.ts
 * runs one; test/tiers.test.ts holds every file to exactly one tier and the unit tier to its promise.
 */
import { HANG_MS } from "./hang.ts";

/** Outside test/e2e/, the files that run the binary, a browser, a real client (test/package.json) or a real server. */
export const WORLDLY = [
  "test/gateway/usage.test.ts",
  "test/conformance/lorebooks.test.ts",
  "test/conformance/sillytavern.test.ts",
  "test/conformance/sweep.test.ts",
  "test/docs/differences.test.ts",
  "test/state/postgres.test.ts",
];

export interface Tier {
  /** Paths given to `bun test` (empty: every file, less the ignored ones). */
  paths: string[];
  flags: string[];
}

export const TIERS: Record<"unit" | "e2e" | "fuzz", Tier> = {
  // Most of their time is spent waiting on the disk and on child processes, so four at once pay off
  // even on two cores.
  unit: {
    paths: [],
    flags: [
      "--parallel=4",
      ...["test/e2e/**", "test/fuzz/**", ...WORLDLY].map((p) => `--path-ignore-patterns=${p}`),
    ],
  },
  e2e: { paths: ["test/e2e/", ...WORLDLY], flags: [] },
  fuzz: { paths: ["test/fuzz/"], flags: [] },
};

/**
 * The arguments of `bun test` for a tier: the hang timeout (test/support/hang.ts), the tier's flags
 * and paths, then `rest` (path filters given to e2e or fuzz replace the tier's folders).
 */
export function bunTestArgs(tier: keyof typeof TIERS, rest: string[]): string[] {
  const filters = rest.filter((a) => !a.startsWith("-"));
  const paths = tier !== "unit" && filters.length > 0 ? [] : TIERS[tier].paths;
  return ["test", `--timeout=${HANG_MS}`, ...TIERS[tier].flags, ...paths, ...rest];
}

/** The tier a test file (a path from the repository's root) belongs to. */
export function tierOf(file: string): keyof typeof TIERS {
  if (file.startsWith("test/fuzz/")) return "fuzz";
  if (file.startsWith("test/e2e/") || WORLDLY.includes(file)) return "e2e";
  return "unit";
}

/** Every test file of the repository, as paths from its root (the test clients' own files left out). */
export function testFiles(root: string): string[] {
  return [...new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: root })]
    .filter((f) => !f.includes("/node_modules/"))
    .sort();
}
