// The test tiers keep their promises: every test file runs in exactly one, the unit tier reaches no
// binary, browser or real client, and the scripts give Bun the hang timeout it would not read itself.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import pkg from "../package.json" with { type: "json" };
import { HANG_MS } from "./support/hang.ts";
import { bunTestArgs, TIERS, testFiles, tierOf, WORLDLY } from "./support/tiers.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const files = testFiles(ROOT);

/** The helpers that start the binary, a browser, a real client or a server. */
const WORLDLY_HELPERS = [
  "support/binary.ts",
  "support/gateway-binary.ts",
  "support/editor-browser.ts",
  "support/client-cli.ts",
  "support/client-session.ts",
  "support/client-replay.ts",
  "support/postgres.ts",
  "support/cluster.ts",
];

/** Names a unit test may take from those helpers: constants, nothing that starts anything. */
const HARMLESS = new Set(["REPO"]);

/**
 * The test-local modules `file` imports, and theirs, as paths from the root; an import of only
 * harmless names from a helper does not count as reaching it.
 */
function importsOf(file: string, seen = new Set<string>()): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  for (const m of text.matchAll(
    /import\s+(?:type\s+)?\{([^}]*)\}\s+from "(\.{1,2}\/[^"]+\.ts)"|from "(\.{1,2}\/[^"]+\.ts)"/g,
  )) {
    const dep = path.relative(ROOT, path.resolve(ROOT, path.dirname(file), (m[2] ?? m[3])!));
    // Only modules that are there: a script a test writes for a child process may name others.
    if (!dep.startsWith("test/") || seen.has(dep) || !fs.existsSync(path.join(ROOT, dep))) continue;
    const names = (m[1] ?? "")
      .split(",")
      .map((n) => n.trim().replace(/^type\s+/, ""))
      .filter(Boolean);
    if (names.length > 0 && names.every((n) => HARMLESS.has(n))) continue;
    seen.add(dep);
    importsOf(dep, seen);
  }
  return seen;
}

describe("the test tiers", () => {
  test("every listed file outside test/e2e/ exists", () => {
    expect(WORLDLY.filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  test("no file of the unit tier reaches a helper that starts the binary, a browser, a client or a server", () => {
    const offenders = files
      .filter((f) => tierOf(f) === "unit")
      .flatMap((f) =>
        [...importsOf(f)]
          .filter((dep) => WORLDLY_HELPERS.some((h) => dep.endsWith(h)))
          .map((dep) => `${f} → ${dep}`),
      );
    expect(offenders).toEqual([]);
  });

  test("no file of the unit tier imports a client the tests install (test/package.json)", () => {
    const clients = Object.keys(
      (
        JSON.parse(fs.readFileSync(path.join(ROOT, "test", "package.json"), "utf8")) as {
          devDependencies: Record<string, string>;
        }
      ).devDependencies,
    );
    const offenders = files
      .filter((f) => tierOf(f) === "unit")
      .flatMap((f) =>
        [f, ...importsOf(f)].flatMap((file) => {
          const text = fs.readFileSync(path.join(ROOT, file), "utf8");
          return clients
            .filter((c) => text.includes(`from "${c}"`) || text.includes(`from "${c}/`))
            .map((c) => `${file} → ${c}`);
        }),
      );
    expect(offenders).toEqual([]);
  });

  test("each tier's paths and ignore patterns agree with tierOf", () => {
    const ignored = TIERS.unit.flags
      .filter((f) => f.startsWith("--path-ignore-patterns="))
      .map((f) => f.slice("--path-ignore-patterns=".length).replace(/\*\*$/, ""));
    for (const file of files) {
      const inUnit = !ignored.some((p) => file.startsWith(p));
      expect([file, inUnit]).toEqual([file, tierOf(file) === "unit"]);
      if (tierOf(file) !== "unit")
        expect([file, TIERS[tierOf(file)].paths.some((p) => file.startsWith(p))]).toEqual([file, true]);
    }
  });

  test("npm test and every tier pass the hang timeout to bun test", () => {
    // The clients first: the type check reads their types.
    expect(pkg.scripts.test).toMatch(/^npm run test:clients && /);
    expect(pkg.scripts.test).toContain(`bun test --timeout=${HANG_MS}`);
    for (const tier of ["unit", "e2e", "fuzz"] as const) {
      expect(pkg.scripts[`test:${tier}`]).toBe(`bun test/tiers.ts ${tier}`);
      expect(bunTestArgs(tier, [])).toContain(`--timeout=${HANG_MS}`);
    }
  });

  test("path filters narrow the unit tier, and take the place of the e2e tier's folders", () => {
    expect(bunTestArgs("unit", ["test/card"]).slice(-1)).toEqual(["test/card"]);
    expect(bunTestArgs("unit", ["test/card"])).toContain("--path-ignore-patterns=test/e2e/**");
    expect(bunTestArgs("e2e", ["test/e2e/mcp.test.ts"]).filter((a) => a.startsWith("test/"))).toEqual([
      "test/e2e/mcp.test.ts",
    ]);
  });
});

describe("the helpers the test files share", () => {
  test("register no hook as they load: it would belong to the first file that imports them alone", () => {
    // `npm test` runs every file in one process, where a module loads once: a helper's top-level
    // afterEach ran for its first importer's tests only, and the files after it left their vaults.
    const helpers = [...new Bun.Glob("test/**/*.ts").scanSync({ cwd: ROOT })].filter(
      (f) => !f.endsWith(".test.ts") && !f.includes("/node_modules/"),
    );
    expect(helpers.length).toBeGreaterThan(20);
    const hooked = helpers.filter((f) =>
      /^(?:afterEach|beforeEach|afterAll|beforeAll)\(/m.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(hooked).toEqual([]);
  });
});
