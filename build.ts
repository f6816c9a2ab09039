/**
 * Builds the single-file `lorecards` binary with `bun build --compile`.
 *
 *   bun build.ts            the host platform → dist/lorecards (dist/lorecards.exe on Windows)
 *   bun build.ts --all      linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64
 *                           → dist/lorecards-<os>-<arch>[.exe]
 *
 * Bytecode, minification and code splitting make cold starts fast (the hook runs on every prompt). The binary never
 * autoloads a `.env` or `bunfig.toml` from the user's working directory: those belong to whatever
 * project the user happens to be in, not to us.
 */
import { mkdirSync } from "node:fs";

const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;
type Target = (typeof TARGETS)[number];

async function build(target: Target | "host"): Promise<string> {
  const exe = target === "windows-x64" || (target === "host" && process.platform === "win32") ? ".exe" : "";
  const outfile = target === "host" ? `dist/lorecards${exe}` : `dist/lorecards-${target}${exe}`;
  const result = await Bun.build({
    entrypoints: ["src/main.ts"],
    compile: {
      ...(target === "host" ? {} : { target: `bun-${target}` as Bun.Build.CompileTarget }),
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    format: "esm",
    // Lazily imported commands (gateway, MCP SDK, zip, the UI) become separate chunks inside the
    // binary, so a cold `hook` or `try` does not load their bytecode.
    splitting: true,
    bytecode: true,
    minify: true,
    sourcemap: "none",
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`build for ${target} failed`);
  }
  return outfile;
}

// Paths below are relative to the repository, wherever the script is started from.
process.chdir(import.meta.dir);
const all = process.argv.includes("--all");
const unknown = process.argv.slice(2).filter((a) => a !== "--all");
if (unknown.length > 0) {
  console.error(`build.ts: unknown argument ${unknown[0]} (use --all for every platform)`);
  process.exit(2);
}
// Overwrite binaries in place rather than wiping dist/: a test run may be using the host binary.
mkdirSync("dist", { recursive: true });
for (const target of all ? TARGETS : (["host"] as const)) {
  const started = performance.now();
  const out = await build(target);
  console.log(`${out}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
