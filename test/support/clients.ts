/**
 * The real clients the end-to-end tests run (Claude Code, Codex, opencode, Qwen Code, Gemini CLI,
 * Continue, the SDKs) live in a package of their own, test/package.json
 * with its own lockfile, so that `npm install` for someone who only wants the editor stays small.
 * `npm run test:clients` installs it (`npm test` and `npm run test:e2e` do it first, CI does it on
 * purpose); a pinned client already found the way Node resolves modules from test/ (test/node_modules,
 * then the repository's node_modules) counts as installed.
 */
import fs from "node:fs";
import path from "node:path";
import { REPO } from "./binary.ts";

export const TEST_PACKAGE = path.join(REPO, "test");

/** Where a package resolves from test/: its folder, or undefined when it is not installed. */
export function packageDir(name: string): string | undefined {
  for (const root of [TEST_PACKAGE, REPO]) {
    const dir = path.join(root, "node_modules", name);
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
  }
  return undefined;
}

/** A client's command (`claude`, `codex`, `opencode`): test/node_modules/.bin first, as npm links them. */
export function clientBin(name: string): string {
  const candidates = [TEST_PACKAGE, REPO].map((root) => path.join(root, "node_modules", ".bin", name));
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0]!;
}

/** A file inside an installed client's package (`bin/claude.exe`); where it would be when absent. */
export function clientFile(name: string, rel: string): string {
  return path.join(packageDir(name) ?? path.join(TEST_PACKAGE, "node_modules", name), rel);
}

/** The pinned clients that are absent, or installed at another version than test/package.json pins. */
export function missingClients(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(TEST_PACKAGE, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  return Object.entries(pkg.devDependencies)
    .filter(([name, spec]) => {
      const dir = packageDir(name);
      if (dir === undefined) return true;
      // An alias (`npm:@anthropic-ai/claude-code@2.1.332`) pins the version after its last `@`.
      const pinned = spec.startsWith("npm:") ? spec.slice(spec.lastIndexOf("@") + 1) : spec;
      const installed = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        version: string;
      };
      return installed.version !== pinned;
    })
    .map(([name, spec]) => `${name}@${spec}`);
}

/** Installs test/package.json from its lockfile when a pinned client is missing; the exit code of npm. */
export function installClients(log: (line: string) => void = console.error): number {
  const missing = missingClients();
  if (missing.length === 0) return 0;
  log(`test/support/clients.ts: installing the test clients (${missing.join(", ")}) into test/node_modules`);
  // `npm install`, which keeps to the lockfile, not `npm ci`: one client's optional dependency names
  // platform packages its author never published, which `npm ci` counts as missing from the lock.
  const npm = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund"], {
    cwd: TEST_PACKAGE,
    stdio: ["ignore", "inherit", "inherit"],
  });
  return npm.exitCode ?? 1;
}
