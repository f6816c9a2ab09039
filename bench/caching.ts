/**
 * What the injected cards cost once the provider's prompt cache is counted. A recorded 20-turn story
 * (bench/fixtures/caching/conversation.json) is replayed through a real gateway handler (createHandler
 * with the vault deps over a temp copy of bench/fixtures/caching/vault, on a real HTTP server on
 * 127.0.0.1) to a fake upstream that bills as the provider would (bench/_prefix-upstream.ts). The
 * client acts as a client does: each request is the whole history so far, without our blocks, with the
 * recorded assistant replies. Before turn 11 the bench saves a new version of one card.
 *
 * It runs once per API and per mode, each with a cold cache and a fresh state.db:
 *   no injection     an empty vault: the gateway passes every request through (checked byte for byte)
 *   original design  `replay: false`, the original tool's strip-and-reinject at the newest message
 *   replay           `tiers: false`: replay without the stable block, the tiers or the breakpoint steward
 *   replay + tiers   the defaults
 * and prints per mode the cache hit ratio (read ÷ input tokens), the input tokens billed at full price
 * (uncached and written), and the cost in uncached tokens under each price sheet (WEIGHTS) with its
 * ratio to the original design's. The Anthropic client marks its system prompt and its newest
 * message with `cache_control`, as Claude Code does; the OpenAI client sets nothing.
 *
 * It exits non-zero when a figure does not add up (read + written + uncached = input, the usage a
 * client read = what the fake counted), when the fake saw anything it could not tokenize or that the
 * real API would refuse, or when the gateway failed open.
 *
 *   bun bench/caching.ts [--budget 4000] [--turns] [--dump DIR]
 *
 * `--turns` prints each request's figures too; `--dump DIR` writes every body the upstream received,
 * with the usage it answered, to DIR/<api>/<mode>/NN.json.
 */

import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULTS } from "../src/defaults.ts";
import { createHandler, INJECTED_HEADER, type InjectSettings, vaultDeps } from "../src/gateway/index.ts";
import { secretPath } from "../src/state/index.ts";
import type { CacheUsage } from "./_prefix-cache.ts";
import { type Api, readUsage, startPrefixUpstream } from "./_prefix-upstream.ts";
import { option, table } from "./_stats.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "caching");
const BUDGET = Number(option("--budget", "4000"));
const TURNS = process.argv.includes("--turns");
const DUMP = option("--dump", "");

interface Story {
  system: string;
  /** Before this turn (1-based) the card at `card` is replaced by `edit/<card>`. */
  edit: { beforeTurn: number; card: string };
  turns: { user: string; assistant: string }[];
}

interface Mode {
  name: string;
  empty?: boolean;
  settings: Partial<InjectSettings>;
}

const MODES: Mode[] = [
  { name: "no injection", empty: true, settings: {} },
  { name: "original design", settings: { replay: false } },
  { name: "replay", settings: { tiers: false } },
  { name: "replay + tiers", settings: {} },
];
const ORIGINAL = "original design";

/** Price of an input token of each kind, as a multiple of an uncached one. */
interface Weights {
  /** Which models bill this way. */
  models: string;
  read: number;
  "5m": number;
  "1h": number;
}

/**
 * The price sheets each API's figures are billed by. OpenAI's cached input costs half for GPT-4o and
 * a tenth for GPT-5 (the same table as `lorecards stats`, src/state/stats.ts); Anthropic bills a
 * 5-minute write 1.25×, a 1-hour write 2× and a read 0.1× (docs.claude.com, prompt caching).
 */
const WEIGHTS: Record<Api, Weights[]> = {
  openai: [
    { models: "GPT-4o", read: 0.5, "5m": 0, "1h": 0 },
    { models: "GPT-5", read: 0.1, "5m": 0, "1h": 0 },
  ],
  anthropic: [{ models: "Claude", read: 0.1, "5m": 1.25, "1h": 2 }],
};

const API_NAMES: Record<Api, string> = {
  openai: "OpenAI chat completions (automatic prefix cache)",
  anthropic: "Anthropic Messages (cache_control breakpoints)",
};

interface Result {
  mode: string;
  totals: CacheUsage;
  /** Requests the upstream received other than the client sent them. */
  rewritten: number;
  /** Requests the gateway said it added cards to (x-lorecards-injected). */
  withCards: number;
  perTurn: CacheUsage[];
}

const story = JSON.parse(readFileSync(join(FIXTURE, "conversation.json"), "utf8")) as Story;
const failures: string[] = [];

function requestBody(
  api: Api,
  turn: number,
): { path: string; headers: Record<string, string>; body: string } {
  const history = story.turns.slice(0, turn).flatMap((t) => [
    { role: "user", content: t.user },
    { role: "assistant", content: t.assistant },
  ]);
  const newest = story.turns[turn]!.user;
  if (api === "openai") {
    const messages = [
      { role: "system", content: story.system },
      ...history,
      { role: "user", content: newest },
    ];
    return {
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-bench" },
      body: JSON.stringify({ model: "gpt-bench", messages }),
    };
  }
  // As Claude Code does: a breakpoint after the system prompt and one on the newest message, which on
  // the next request is sent again as a plain string.
  const ephemeral = { type: "ephemeral" };
  return {
    path: "/v1/messages",
    headers: { "x-api-key": "sk-ant-bench", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "claude-bench",
      max_tokens: 1024,
      system: [{ type: "text", text: story.system, cache_control: ephemeral }],
      messages: [
        ...history,
        { role: "user", content: [{ type: "text", text: newest, cache_control: ephemeral }] },
      ],
    }),
  };
}

/** Save `edit/<card>` over the vault's card as an editor does: a temp file renamed over it. */
function editCard(vault: string): void {
  const target = join(vault, story.edit.card);
  const temp = join(dirname(target), `.caching-bench-${process.pid}.tmp`);
  writeFileSync(temp, readFileSync(join(FIXTURE, "edit", story.edit.card)));
  renameSync(temp, target);
}

function sum(a: CacheUsage, b: CacheUsage): CacheUsage {
  return {
    input: a.input + b.input,
    read: a.read + b.read,
    written: { "5m": a.written["5m"] + b.written["5m"], "1h": a.written["1h"] + b.written["1h"] },
    uncached: a.uncached + b.uncached,
  };
}

const ZERO: CacheUsage = { input: 0, read: 0, written: { "5m": 0, "1h": 0 }, uncached: 0 };

function addsUp(u: CacheUsage): boolean {
  return u.read + u.written["5m"] + u.written["1h"] + u.uncached === u.input;
}

async function runMode(api: Api, mode: Mode): Promise<Result> {
  const work = mkdtempSync(join(tmpdir(), "lc-bench-caching-"));
  const vault = join(work, "vault");
  if (mode.empty) mkdirSync(vault);
  else cpSync(join(FIXTURE, "vault"), vault, { recursive: true });
  // Our markers derive from a random secret, and their token count varies with it: a fixed one keeps
  // the figures the same from run to run.
  mkdirSync(dirname(secretPath(vault)), { recursive: true });
  writeFileSync(secretPath(vault), `${"5eed".repeat(12)}\n`, { mode: 0o600 });
  const where = `${api}, ${mode.name}`;
  const upstream = startPrefixUpstream({ reply: (_, i) => story.turns[i]?.assistant ?? "" });
  const deps = vaultDeps({
    vaultRoot: vault,
    engine: { watch: false },
    warn: (line) => failures.push(`${where}: the gateway warned: ${line}`),
  });
  const settings = {
    inject: DEFAULTS.inject,
    window: DEFAULTS.scanDepth,
    budget: BUDGET,
    log: false,
    ...mode.settings,
  };
  const handler = createHandler({ upstream: new URL(upstream.url), settings, deps });
  const gateway = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  const result: Result = { mode: mode.name, totals: ZERO, rewritten: 0, withCards: 0, perTurn: [] };
  try {
    for (let turn = 0; turn < story.turns.length; turn++) {
      if (turn + 1 === story.edit.beforeTurn && !mode.empty) editCard(vault);
      const { path, headers, body } = requestBody(api, turn);
      const res = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const answer = (await res.json()) as { usage?: unknown };
      const seen = upstream.seen.at(-1);
      if (res.status !== 200 || seen === undefined || upstream.seen.length !== turn + 1) {
        failures.push(`${where}, turn ${turn + 1}: status ${res.status}, ${JSON.stringify(answer)}`);
        break;
      }
      const usage = readUsage(api, answer.usage);
      if (usage === null || !Bun.deepEquals(usage, seen.usage) || !addsUp(usage)) {
        failures.push(
          `${where}, turn ${turn + 1}: usage ${JSON.stringify(answer.usage)} does not add up to what the ` +
            `fake counted (${JSON.stringify(seen.usage)})`,
        );
      }
      result.totals = sum(result.totals, seen.usage);
      result.perTurn.push(seen.usage);
      if (DUMP) dump(api, mode.name, turn, seen.body, answer.usage);
      if (seen.body !== body) result.rewritten++;
      if (res.headers.has(INJECTED_HEADER)) result.withCards++;
    }
  } finally {
    await gateway.stop(true);
    await deps.close();
    await upstream.close();
    rmSync(work, { recursive: true, force: true });
  }
  for (const p of upstream.problems) failures.push(`${where}: ${p}`);
  if (mode.empty && result.rewritten > 0) {
    failures.push(`${where}: the gateway rewrote ${result.rewritten} requests over an empty vault`);
  }
  if (!addsUp(result.totals)) failures.push(`${where}: the totals do not add up`);
  return result;
}

function dump(api: Api, mode: string, turn: number, body: string, usage: unknown): void {
  const dir = join(DUMP, api, mode.replaceAll(/[^a-z0-9]+/g, "-"));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${String(turn + 1).padStart(2, "0")}.json`);
  writeFileSync(file, JSON.stringify({ usage, body: JSON.parse(body) }, null, 2));
}

function billed(w: Weights, u: CacheUsage): number {
  return u.uncached + u.read * w.read + u.written["5m"] * w["5m"] + u.written["1h"] * w["1h"];
}

function report(api: Api, results: Result[]): void {
  const base = results.find((r) => r.mode === "no injection")!;
  const original = results.find((r) => r.mode === ORIGINAL)!;
  const sheets = WEIGHTS[api];
  const sheet = (w: Weights) =>
    api === "openai"
      ? `${w.models}: cached ×${w.read}`
      : `${w.models}: written ×${w["5m"]} (1 h: ×${w["1h"]}), read ×${w.read}`;
  console.log(`\n${API_NAMES[api]}; cost in uncached tokens, ${sheets.map(sheet).join("; ")}`);
  const rows: (string | number)[][] = [
    [
      "mode",
      "turns with cards",
      "input tokens",
      "of them cards",
      "at full price",
      "read from cache",
      ...(api === "anthropic" ? ["written"] : []),
      "hit ratio",
      ...sheets.flatMap((w) => [`cost (${w.models})`, "÷ original"]),
    ],
  ];
  const fmt = (n: number) => Math.round(n).toLocaleString("en");
  for (const r of results) {
    const t = r.totals;
    rows.push([
      r.mode,
      `${r.withCards}/${story.turns.length}`,
      fmt(t.input),
      fmt(t.input - base.totals.input),
      fmt(t.uncached + (api === "anthropic" ? t.written["5m"] + t.written["1h"] : 0)),
      fmt(t.read),
      ...(api === "anthropic" ? [fmt(t.written["5m"] + t.written["1h"])] : []),
      `${((100 * t.read) / t.input).toFixed(1)}%`,
      ...sheets.flatMap((w) => [
        fmt(billed(w, t)),
        `${(billed(w, t) / billed(w, original.totals)).toFixed(3)}×`,
      ]),
    ]);
  }
  console.log(table(rows));
  if (TURNS) printTurns(api, results);
}

/** Each request's figures: read / written / uncached tokens, per mode. */
function printTurns(api: Api, results: Result[]): void {
  const rows: (string | number)[][] = [["turn", ...results.map((r) => r.mode)]];
  story.turns.forEach((_, i) => {
    const cells = results.map((r) => {
      const u = r.perTurn[i];
      if (!u) return "-";
      const written = u.written["5m"] + u.written["1h"];
      return `${u.read}/${api === "anthropic" ? `${written}/` : ""}${u.uncached}`;
    });
    rows.push([i + 1, ...cells]);
  });
  const what = api === "anthropic" ? "read/written/uncached" : "read/uncached";
  console.log(`\nper request (${what} tokens)\n${table(rows)}`);
}

console.log(
  `caching: ${story.turns.length} turns, ${MODES.length} modes, budget ${BUDGET} characters, ` +
    `window ${DEFAULTS.scanDepth}, the gateway's default reinject (replay: never; original design: ` +
    `after ${DEFAULTS.reinjectAfter} turns); ` +
    `"${story.edit.card}" edited before turn ${story.edit.beforeTurn}`,
);
for (const api of ["openai", "anthropic"] as const) {
  const results: Result[] = [];
  for (const mode of MODES) results.push(await runMode(api, mode));
  report(api, results);
}
if (failures.length > 0) {
  console.error(`\nThe figures above are not to be trusted:\n${failures.map((f) => `  ${f}`).join("\n")}`);
  process.exitCode = 1;
}
