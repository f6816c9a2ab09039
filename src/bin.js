#!/usr/bin/env node
/**
 * The `lorecards` command an npm install links (`npm i -g .`, package.json `bin`). It is plain Node,
 * because a machine with only Node.js and npm has no Bun on its PATH: it starts the Bun that npm
 * installed beside lorecards (the `bun` dependency) on `src/main.ts`, with the same isolation the
 * compiled binary has (build.ts): no `.env`, `bunfig.toml` or package auto-install from the user's
 * working directory. It never reads the vault or the arguments; `src/main.ts` does everything.
 *
 * Run by npm as this package's `prepare` script, it does one other thing: `npm i -g .` from a
 * checkout links the folder and installs none of its dependencies, so in a global install of a
 * checkout with no node_modules it installs the runtime ones from the lockfile (`npm install
 * --omit=dev`). Anywhere else (a development install, `npm ci`, a git or tarball install) the
 * dependencies are already there, or about to be, and it does nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Where the `bun` dependency's executable is (its postinstall puts the real one there). */
function bunPath() {
  try {
    const pkg = createRequire(join(ROOT, "package.json")).resolve("bun/package.json");
    return join(dirname(pkg), "bin", "bun.exe");
  } catch {
    return undefined;
  }
}

function runningAsOurPrepare() {
  const json = process.env.npm_package_json;
  return (
    process.env.npm_lifecycle_event === "prepare" &&
    json !== undefined &&
    existsSync(json) &&
    realpathSync(json) === realpathSync(join(ROOT, "package.json"))
  );
}

function prepare() {
  const linked = process.env.npm_config_global === "true";
  if (!linked || bunPath() !== undefined || existsSync(join(ROOT, "node_modules"))) return 0;
  console.error(`lorecards: installing its runtime dependencies into ${join(ROOT, "node_modules")}`);
  // The global install's own settings (global, prefix) would point this install at the global
  // folder: it is a plain install of this checkout.
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_config_(global|prefix|global_prefix|local_prefix)$/i.test(key)) delete env[key];
  }
  // npm_execpath is npm's own script when npm runs this (another package manager names its own).
  const npm = /npm-cli\.[cm]?js$/.test(process.env.npm_execpath ?? "") ? process.env.npm_execpath : undefined;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  // `install --no-save` rather than `ci`: the same locked versions, but it leaves the checkout's
  // lockfile alone and does not refuse a lockfile that lacks another platform's optional packages.
  const install = ["install", "--omit=dev", "--no-save", "--no-audit", "--no-fund"];
  const result = spawnSync(cmd, [...args, ...install], {
    cwd: ROOT,
    env,
    stdio: "inherit",
    shell: !npm && process.platform === "win32",
  });
  return result.status ?? 1;
}

function run(bun) {
  const child = spawn(
    bun,
    [
      "--no-env-file",
      "--no-install",
      `--config=${join(ROOT, "bunfig.toml")}`,
      join(ROOT, "src", "main.ts"),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  // Ctrl-C reaches the whole foreground process group, Bun included, so SIGINT is not passed on (a
  // second one would cut a server's shutdown short). SIGTERM and SIGHUP are sent to one process.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    console.error(`lorecards: cannot start Bun (${bun}): ${err.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    // Die of the same signal, so the caller sees what Bun saw (a shell prints 130 for SIGINT).
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  });
}

if (runningAsOurPrepare()) {
  process.exitCode = prepare();
} else {
  const bun = bunPath();
  if (bun === undefined) {
    console.error(
      `lorecards: Bun is not installed beside lorecards in ${ROOT}: run \`npm install --omit=dev\` there` +
        " (npm runs it itself on `npm i -g .` unless install scripts are off)",
    );
    process.exit(1);
  }
  run(bun);
}
