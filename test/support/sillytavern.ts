/**
 * SillyTavern 1.12.6 as a judge (`../shared/judges/sillytavern/`, its README): its own server and
 * front end, with `oracle.mjs` driving the page in headless Chromium so that SillyTavern's import code
 * says what it makes of a file and its `checkWorldInfo` says which entries activate, in what order and
 * where. Tests compare lorecards' answers with these, never with answers written by reading its code.
 *
 * The app needs its dependencies installed (`npm ci`, about 30 s, from the npm registry): CI installs a
 * copy and names it in `LORECARDS_SILLYTAVERN`; without that variable a copy is installed once into the
 * system's temporary folder and reused. Each test file starts its own server (on a free port, with its
 * own data folder) and stops it when done.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "./binary.ts";
import { packageDir } from "./clients.ts";
import { CHROMIUM } from "./editor-browser.ts";
import { prerequisite } from "./prerequisites.ts";
import { until } from "./wait.ts";

/** `../shared/judges/sillytavern`, resolved from the repository's root. */
export const JUDGE = path.resolve(REPO, "../shared/judges/sillytavern");

/** Whether the judge and Chromium are there, as `prerequisite` says (skip, or fail under CI). */
export function haveSillyTavern(who: string): boolean {
  const judge = fs.existsSync(path.join(JUDGE, "oracle.mjs"));
  if (!prerequisite(judge, who, `${JUDGE} is absent (shared/ lives beside the repository)`)) return false;
  return prerequisite(fs.existsSync(CHROMIUM), who, `${CHROMIUM} is missing (apt-get install -y chromium)`);
}

/** One activated entry, as the oracle reports it. */
export interface Activation {
  uid: number;
  order: number;
  /** SillyTavern's `world_info_position`: 0 before the character, 1 after, 2/3 Author's Note, 4 at depth, 5/6 examples, 7 outlet. */
  position: number;
  depth: number | null;
  /** 0 system, 1 user, 2 assistant (at depth only). */
  role: number | null;
  constant: boolean;
}

export interface Answer {
  id: string;
  acts: Activation[];
}

/** One question for `checkWorldInfo`. */
export interface Question {
  id: string;
  /** A `.st.json` that `importFiles` wrote. */
  book: string;
  /** `world_info_depth`: messages scanned when an entry has no scan depth of its own. */
  depth: number;
  /** The messages, newest first. */
  chat: string[];
  /** World Info settings to change (the oracle's defaults: no budget, recursion off, whole words on). */
  settings?: Record<string, unknown>;
}

export interface Imported {
  file: string;
  /** SillyTavern's stored World Info for it, or null (with `error`) when its import failed. */
  out: string | null;
  error?: string;
}

export interface SillyTavern {
  url: string;
  /** Each file through SillyTavern's own import; its stored World Info is written into `outDir`. */
  importFiles(outDir: string, files: readonly string[]): Promise<Imported[]>;
  /** `checkWorldInfo` as a dry run for every question (one browser for all). */
  evaluate(questions: readonly Question[]): Promise<Answer[]>;
  stop(): Promise<void>;
}

/** The installed copy of the app: `LORECARDS_SILLYTAVERN`, else one installed once in the temp folder. */
async function installedApp(): Promise<string> {
  const given = process.env.LORECARDS_SILLYTAVERN;
  if (given) {
    if (!fs.existsSync(path.join(given, "node_modules")))
      throw new Error(`LORECARDS_SILLYTAVERN=${given} is not an installed SillyTavern (no node_modules)`);
    return given;
  }
  const lock = fs.readFileSync(path.join(JUDGE, "app", "package-lock.json"));
  const tag = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  const app = path.join(os.tmpdir(), `lorecards-sillytavern-${tag}`);
  if (fs.existsSync(path.join(app, ".installed"))) return app;
  await withLock(`${app}.lock`, async () => {
    if (fs.existsSync(path.join(app, ".installed"))) return;
    console.warn(`test/support/sillytavern.ts: installing SillyTavern into ${app} (npm ci, once)`);
    fs.rmSync(app, { recursive: true, force: true });
    fs.cpSync(path.join(JUDGE, "app"), app, { recursive: true });
    const r = await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: app });
    if (r.code !== 0) throw new Error(`npm ci for SillyTavern failed (${r.code}): ${r.stderr.slice(-2000)}`);
    fs.writeFileSync(path.join(app, ".installed"), "");
  });
  return app;
}

/** Runs `fn` holding a lock directory (another test process installing waits for it). */
async function withLock(lock: string, fn: () => Promise<void>): Promise<void> {
  await until(
    () => {
      try {
        fs.mkdirSync(lock);
        return true;
      } catch {
        const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age > 600_000) fs.rmSync(lock, { recursive: true, force: true });
        return false;
      }
    },
    `the lock ${lock}`,
    900_000,
  );
  try {
    await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A port nobody listens on right now. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * The oracle, placed inside the app so that its `import "playwright-core"` resolves: the app's
 * node_modules gets a link to this repository's playwright-core. The app is shared by every clone on
 * the machine, so a link left by a clone since removed dangles: it is pointed here again.
 */
function placeOracle(app: string): string {
  const link = path.join(app, "node_modules", "playwright-core");
  const target = fs.realpathSync(packageDir("playwright-core") ?? "playwright-core is not installed");
  if (!fs.existsSync(link)) {
    fs.rmSync(link, { force: true });
    try {
      fs.symlinkSync(target, link);
    } catch (err) {
      // another test file placed it in the meantime
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  const oracle = path.join(app, "lorecards-oracle.mjs");
  fs.copyFileSync(path.join(JUDGE, "oracle.mjs"), oracle);
  return oracle;
}

/** Starts SillyTavern on a free port with a data folder of its own; resolves once its page answers. */
export async function startSillyTavern(): Promise<SillyTavern> {
  const app = await installedApp();
  const oracle = placeOracle(app);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-st-"));
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(
    "node",
    ["server.js", "--port", String(port), "--dataRoot", path.join(scratch, "data")],
    {
      cwd: app,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  let exited = false;
  server.stdout.on("data", (d) => {
    log += d;
  });
  server.stderr.on("data", (d) => {
    log += d;
  });
  server.on("close", () => {
    exited = true;
  });
  const stop = async () => {
    if (!exited) {
      server.kill();
      await until(() => exited, "SillyTavern to stop", 20_000);
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (exited) throw new Error(`SillyTavern exited while starting:\n${log.slice(-3000)}`);
        return (await fetch(`${url}/`).catch(() => null))?.status === 200;
      },
      "SillyTavern's page",
      180_000,
    );
  } catch (e) {
    await stop();
    throw e;
  }

  const oracleRun = async (args: string[]): Promise<void> => {
    const r = await run("node", [oracle, ...args], { env: { ST_URL: url, CHROMIUM } });
    if (r.code !== 0) throw new Error(`oracle.mjs ${args[0]} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  };

  return {
    url,
    async importFiles(outDir, files) {
      // The oracle waits a fixed moment for the app's start-up; on a busy machine an import can run
      // before the app has read its list of books and fail: those files are imported again.
      const done = new Map<string, Imported>();
      let left = [...files];
      for (let attempt = 0; attempt < 3 && left.length > 0; attempt++) {
        const dir = attempt === 0 ? outDir : `${outDir}-again-${attempt}`;
        await oracleRun(["import", dir, ...left]);
        const report = JSON.parse(
          fs.readFileSync(path.join(dir, "import-report.json"), "utf8"),
        ) as Imported[];
        for (const r of report)
          done.set(r.file, { file: r.file, out: r.out, ...(r.error ? { error: r.error } : {}) });
        left = left.filter((f) => !done.get(f)?.out);
      }
      return files.map((f) => done.get(f) ?? { file: f, out: null, error: "not in the oracle's report" });
    },
    async evaluate(questions) {
      if (questions.length === 0) return [];
      const dir = fs.mkdtempSync(path.join(scratch, "eval-"));
      const cases = questions.map((q) => ({
        ...q,
        bookId: createHash("sha1").update(q.book).digest("hex").slice(0, 10),
      }));
      fs.writeFileSync(path.join(dir, "cases.json"), JSON.stringify(cases));
      await oracleRun(["eval", path.join(dir, "cases.json"), path.join(dir, "answers.json")]);
      return JSON.parse(fs.readFileSync(path.join(dir, "answers.json"), "utf8")) as Answer[];
    },
    stop,
  };
}
