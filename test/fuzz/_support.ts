/**
 * Shared by the fuzz suites: one seed per run (printed, and replayed with FUZZ_SEED=<n>), a time budget
 * per target, the checks every case makes (a thrown value is a coded LoreError, no call takes over a
 * second), and a sandbox whose vault sits three folders deep in a temp folder of its own, so a write
 * that escapes the vault by `..` lands somewhere the snapshot sees.
 */
import { afterAll, beforeAll } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { type ErrorCode, LoreError } from "../../src/errors.ts";
import { initVault, openVault, type Vault } from "../../src/vault/index.ts";
import { vaultFiles } from "../support/card-vault.ts";

// The yaml package warns on stderr (process.emitWarning) for every mapping key that is itself a
// collection; the fuzzers write thousands of those on purpose.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  if (String(warning).includes("Keys with collection values")) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

/**
 * FUZZ_SEED replays a run. Under CI the seed is fixed, so a red CI means the code changed, not the
 * dice; a local run explores new cases every time and prints its seed to replay what it finds.
 */
const CI_SEED = 20261130;
export const SEED = (() => {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && given !== "") return Number(given) | 0;
  if (process.env.CI) return CI_SEED;
  return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
})();

/** FUZZ_SCALE multiplies every target's runs and time budget (e.g. 10 for a long local run). */
const SCALE = Math.max(0.1, Number(process.env.FUZZ_SCALE ?? "1") || 1);

/** bun test's limit for one fuzz target, which only ends a hang: its budget plus time to shrink a failure. */
export function timeoutFor(budget: Budget): number {
  return Math.round(budget.ms * SCALE) + 120_000;
}

/**
 * When one call is too slow: a call that took SLOW_MS on the clock is judged by the CPU time the
 * process spent while it ran (which other processes on a busy machine do not inflate) against a fixed
 * reference workload's, and it fails only when it cost SLOW_RATIO times the reference or more. The clock alone never fails a
 * case; a pathological input (a regex that backtracks, a quadratic loop) still does. The reference
 * (ten JSON round trips of a 36 KB document) costs about 1 ms, so the ratio stands where the old bound
 * of 1 s stood. (Two round trips, as it once was, cost 0.1 to 0.3 ms on a fast machine: too short to
 * measure steadily, and it put the limit under 150 ms, which an alias bomb's refusal could cross.)
 */
const SLOW_MS = 250;
const SLOW_RATIO = 1000;
const REFERENCE = {
  cards: Array.from({ length: 200 }, (_, i) => ({
    key: `card ${i}`,
    keywords: ["alpha", "beta", `w${i}`],
    body: "Some text about a card. ".repeat(5),
  })),
};

const REFERENCE_ROUNDS = 10;

/** The CPU time of `fn`, in ms. */
async function cpuMs(fn: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/** The reference workload's CPU time, the cheapest of five. */
async function referenceMs(): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const ms = await cpuMs(() => {
      for (let j = 0; j < REFERENCE_ROUNDS; j++) JSON.parse(JSON.stringify(REFERENCE));
    });
    best = Math.min(best, ms);
  }
  return Math.max(best, 0.1);
}

export function announce(suite: string): void {
  console.log(`fuzz ${suite}: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
}

export interface Budget {
  /** Cases to run when time allows. */
  runs: number;
  /** Wall-clock budget for the target, in ms; the run stops early (as a pass) when it is spent. */
  ms: number;
}

/** The slowest call measured by `attempt` since the last target started. */
let slowest = 0;

/**
 * Run a property with the suite's seed and budget. A failure throws fast-check's report: the seed,
 * the path to replay and the (shrunk) counterexample.
 */
export async function fuzz<Ts>(
  name: string,
  property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
  budget: Budget,
): Promise<void> {
  const started = performance.now();
  slowest = 0;
  const running = new Set<PromiseLike<unknown>>();
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, {
    seed: SEED,
    numRuns: Math.round(budget.runs * SCALE),
    plugins: [fc.interruptAfterTimeLimit(budget.ms * SCALE), tracked(running)],
  });
  // The time limit stops waiting for the case under way, not the case: it goes on in the background,
  // and its requests and writes would land in the next test's first case (an extra request at the
  // fake upstream, a file in a vault it snapshotted). It ends here, its outcome ignored as the budget's.
  await Promise.allSettled(running);
  const ms = Math.round(performance.now() - started);
  console.log(`fuzz ${name}: ${details.numRuns} cases in ${ms} ms, slowest call ${Math.round(slowest)} ms`);
  if (!details.failed) return;
  const report = (await fc.asyncDefaultReportMessage(details)) ?? "property failed";
  const cause = details.errorInstance;
  const why = cause instanceof Error ? `${cause.message}\n${cause.stack ?? ""}` : String(cause);
  throw new Error(`${shorten(report)}\n\nError: ${shorten(why)}`);
}

/** A plugin that keeps each run of the predicate in `running` until it settles. */
function tracked(running: Set<PromiseLike<unknown>>): fc.UniversalPlugin {
  return () => ({
    decorateRun: (run) => (value) => {
      const out = run(value);
      if (out !== null && typeof out === "object" && "then" in out) {
        running.add(out);
        const done = () => running.delete(out);
        out.then(done, done);
      }
      return out;
    },
  });
}

/** Long runs of one piece (the huge strings) collapsed, and the whole report capped. */
export function shorten(text: string, max = 6000): string {
  const collapsed = text.replace(
    /([\s\S]{1,8}?)\1{15,}/g,
    (run, piece: string) => `${piece}«×${run.length / piece.length}»`,
  );
  return collapsed.length > max ? `${collapsed.slice(0, max)}… (${collapsed.length} chars)` : collapsed;
}

export type Outcome<T> = ({ ok: true; value: T } | { ok: false; error: unknown }) & {
  ms: number;
  /** The CPU time the process spent while the call ran (expectFast's measure). */
  cpu: number;
};

/** Run one call, never throwing: its value or error, and how long it took. */
export async function attempt<T>(fn: () => T | Promise<T>): Promise<Outcome<T>> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const took = () => {
    const ms = performance.now() - t0;
    slowest = Math.max(slowest, ms);
    const spent = process.cpuUsage(cpu0);
    return { ms, cpu: (spent.user + spent.system) / 1000 };
  };
  try {
    const value = await fn();
    return { ok: true, value, ...took() };
  } catch (error) {
    return { ok: false, error, ...took() };
  }
}

/** The call was not pathologically slow, judged against the reference workload (above). */
export async function expectFast(outcome: { ms: number; cpu: number }, what: string): Promise<void> {
  if (outcome.ms < SLOW_MS) return;
  // Never the call again: it may write, or send a request a test counts.
  const ms = outcome.cpu;
  const reference = await referenceMs();
  if (ms / reference >= SLOW_RATIO)
    throw new Error(
      `${what} cost ${Math.round(ms)} ms of CPU, ${Math.round(ms / reference)}× the reference workload's ${reference.toFixed(2)} ms (limit ${SLOW_RATIO}×)`,
    );
}

/** A refusal must be a LoreError with one of the expected codes, never `internal` or a bare Error. */
export function expectCoded(error: unknown, allowed: readonly ErrorCode[]): LoreError {
  if (!(error instanceof LoreError)) {
    const shown = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
    throw new Error(`an uncoded error escaped: ${shown}`);
  }
  if (!allowed.includes(error.code)) {
    throw new Error(`LoreError ${error.code} (expected one of ${allowed.join(", ")}): ${error.message}`);
  }
  return error;
}

/** The first lines of a value, for messages. */
export function preview(value: unknown, max = 300): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export interface Sandbox {
  /** The temp folder that holds everything; nothing here but the vault may change. */
  parent: string;
  /** The vault: `<parent>/a/b/vault`. */
  root: string;
  /** Every file, folder and link under `parent` outside the vault, with its content. */
  outside(): Record<string, string>;
  /** Every file of the vault except `.lorecards/` (test/support vaultFiles). */
  files(): Record<string, string>;
  remove(): void;
}

export function sandbox(fill: (root: string) => void): Sandbox {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "lc-fuzz-"));
  const root = path.join(parent, "a", "b", "vault");
  fs.mkdirSync(root, { recursive: true });
  // Something beside the vault at every level, so a write or a delete there shows.
  fs.writeFileSync(path.join(parent, "canary.md"), "---\nkeywords: [canary]\n---\ncanary\n");
  fs.writeFileSync(path.join(parent, "a", "canary.md"), "canary\n");
  fs.writeFileSync(path.join(parent, "a", "b", "canary.md"), "canary\n");
  fill(root);
  return {
    parent,
    root,
    outside: () => walk(parent, root),
    files: () => vaultFiles(root),
    remove: () => fs.rmSync(parent, { recursive: true, force: true }),
  };
}

function walk(dir: string, skip: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (p === skip) continue;
      const rel = path.relative(dir, p);
      if (e.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) {
        out[rel] = "/";
        visit(p);
      } else out[rel] = fs.readFileSync(p, "latin1");
    }
  };
  visit(dir);
  return out;
}

/** What a case must leave as it was: every file outside the vault, and the vault's card files. */
export interface Untouched {
  outside: Record<string, string>;
  cards: Record<string, string>;
}

/** The sandbox as it is before a case, for `expectUntouched` after it. */
export function untouched(box: Sandbox): Untouched {
  return { outside: box.outside(), cards: box.files() };
}

/**
 * Asserts that nothing outside the vault changed and, when `cardsKept` says why they must have been
 * kept, that no card file was created, changed or removed; a message names the first difference.
 */
export function expectUntouched(box: Sandbox, before: Untouched, cardsKept?: string): void {
  const outside = firstDifference(before.outside, box.outside());
  if (outside !== null) throw new Error(`something was written outside the vault: ${outside}`);
  if (cardsKept === undefined) return;
  const cards = firstDifference(before.cards, box.files());
  if (cards !== null) throw new Error(`the vault changed although ${cardsKept}: ${cards}`);
}

/**
 * A sandbox and what serves it for the enclosing `describe`, made again once its vault holds more than
 * `maxCards` card files, so no case pays for the cards every earlier case wrote. `take()` gives the
 * current one and what it held before the case.
 */
export function renewing<T extends { box: Sandbox; close(): void | Promise<void> }>(
  make: () => Promise<T>,
  maxCards = 60,
): { take(): Promise<T & { before: Untouched }> } {
  let current: T | undefined;
  beforeAll(async () => {
    current = await make();
  });
  afterAll(async () => {
    await current?.close();
  });
  return {
    async take() {
      if (Object.keys(current!.box.files()).length > maxCards) {
        await current!.close();
        current = await make();
      }
      return { ...current!, before: untouched(current!.box) };
    },
  };
}

export function firstDifference(a: Record<string, string>, b: Record<string, string>): string | null {
  for (const k of Object.keys(a)) {
    if (!(k in b)) return `${k} was removed`;
    if (a[k] !== b[k]) return `${k} changed`;
  }
  for (const k of Object.keys(b)) if (!(k in a)) return `${k} was created`;
  return null;
}

/**
 * Card files as people and other tools leave them, beside the example cards of a new vault: CRLF and a
 * BOM, YAML that does not parse, frontmatter that never closes, none at all, an empty or a null one,
 * repeated keys, an alias bomb, odd values. Every surface must cope with each of them.
 */
export const ODD_CARDS: Record<string, string> = {
  "people/Crlf.md":
    "\uFEFF---\r\ntitle: Crlf\r\nkeywords: [crlf, windows]\r\n---\r\n## who\r\nWritten on Windows.\r\n",
  "people/Broken.md": "---\ntitle: [unclosed\nkeywords: broken\n---\n## who\nUnreadable YAML.\n",
  "people/Unclosed.md": "---\ntitle: Unclosed\nkeywords: [unclosed]\n## who\nThe fence never closes.\n",
  "people/Plain.md": "## who\nNo frontmatter at all; mentions alice.\n",
  "people/Empty.md": "---\n---\n## who\nAn empty frontmatter block.\n",
  "people/Tilde.md": "---\n~\n---\n## who\nA null frontmatter document.\n",
  "people/Twice.md":
    "---\ntitle: Twice\ntitle: Twice again\nkeywords: [twice]\n---\n## who\nA key written twice.\n",
  "people/Weird.md": "---\nkeywords: [weird]\nenabled: {toString: 0}\n---\n## who\nAn odd flag.\n",
  "people/Bomb.md":
    "---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nkeywords: *c\n---\nbody\n",
  "people/Js.md": "---js\n{ keywords: ['js'] }\n---\nCode as frontmatter.\n",
  "slang/Many.md": `---\nkeywords: [${Array.from({ length: 300 }, (_, i) => `w${i}`).join(", ")}]\n---\nMany words.\n`,
  "things/小林の本.md":
    "---\ntitle: 小林の本\nkeywords: [小林, 本]\nsecondary: {all: [読む], not: [燃やす]}\n---\n## what\n本です。\n",
};

/** A card whose `enabled` is a mapping with a `toString` key (once a bare TypeError in parseCard). */
export const ODD_UNREADABLE = "people/Weird.md";

/** A new vault with the example cards and ODD_CARDS. */
export function initOddVault(root: string): void {
  initVault(root);
  for (const [rel, text] of Object.entries(ODD_CARDS)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/**
 * One sandboxed, initialised vault for the enclosing `describe`: made before its tests, removed after.
 * Its fields are set once the tests run.
 */
export function vaultSandbox(): { box: Sandbox; vault: Vault } {
  const shared = {} as { box: Sandbox; vault: Vault };
  beforeAll(() => {
    shared.box = sandbox(initVault);
    shared.vault = openVault(shared.box.root);
  });
  afterAll(() => shared.box.remove());
  return shared;
}

/** Runs `fn` over a new sandboxed vault of its own (its example cards), removed after. */
export async function inNewVault(fn: (vault: Vault, box: Sandbox) => unknown): Promise<void> {
  const box = sandbox(initVault);
  try {
    await fn(openVault(box.root), box);
  } finally {
    box.remove();
  }
}
