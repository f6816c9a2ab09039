/**
 * opencode (`opencode run`, npm `opencode-ai`) as a user sets it up: an `opencode.json` whose provider
 * `options.baseURL` is the gateway's OpenAI base URL (origin + `/v1`), talking through the compiled
 * gateway to the fake upstream. opencode runs with a fresh HOME and XDG directories and no network:
 * `OPENCODE_DISABLE_MODELS_FETCH` keeps it on its bundled model list instead of models.dev, and
 * `npm_config_offline` makes the background install of `@opencode-ai/plugin` into its config directory
 * fail (a logged warning) without reaching the registry. Each of its three ways to a model (a custom
 * `@ai-sdk/openai-compatible` provider, the built-in `openai` one, which speaks Responses, and the
 * built-in `anthropic` one, whose base URL ends in `/v1` too) gets the card. Skipped, with a message,
 * when node_modules/.bin/opencode is absent or does not run (OPENCODE_BIN names another one).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { ensureBinary } from "../support/binary.ts";
import { clientBin } from "../support/clients.ts";
import { type FakeUpstream, type Received, startFakeUpstream } from "../support/fake-upstream.ts";
import { HANG_MS } from "../support/hang.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const OPENCODE = process.env.OPENCODE_BIN ?? clientBin("opencode");
// opencode-ai is a pinned test client (test/package.json): in CI a missing or broken install is a
// failure, not a skip.
const HAVE_OPENCODE = prerequisite(
  fs.existsSync(OPENCODE) && runs(OPENCODE),
  "test/e2e/opencode.test.ts",
  `no working ${OPENCODE} (npm i -D opencode-ai@1.18.33, with its postinstall)`,
);

/**
 * Without its postinstall (`--ignore-scripts`, or `bun install` without trustedDependencies) the
 * package's bin is a shell snippet with no shebang that only says so: that counts as absent too.
 */
function runs(bin: string): boolean {
  try {
    return Bun.spawnSync([bin, "--version"], { stdout: "ignore", stderr: "ignore" }).success;
  } catch {
    return false;
  }
}

/**
 * One `opencode run` that has not ended after this long is hung, and is killed so that its test says
 * what it printed. It is no bound on its speed: a run takes seconds on an idle machine and over a
 * minute on a loaded one (most of it starting its 180 MB binary), so each test may take this long per
 * run it makes, and a little more.
 */
const RUN_HANG_MS = HANG_MS;
const testTimeout = (runs: number) => runs * RUN_HANG_MS + 30_000;

const PROMPT = "Tell me about Zorblax please.";
const REPLY = "Zorblax sells lanterns.";
// opencode quotes a message argument that contains spaces before it sends it.
const CARD_THEN_PROMPT =
  /^<!-- lorecards:([0-9a-f]+) -->\nA memory surfaces:\n\n### Zorblax \[people\]\n## who\nA merchant\.\n<!-- \/lorecards:\1 -->\n\n"Tell me about Zorblax please\."$/;

let upstream: FakeUpstream;
let vault: string;
let gateway: Subprocess<"ignore", "pipe", "pipe">;
let openaiBaseUrl = "";
const scratch: string[] = [];

/** The first line the process prints on stdout: its --json "ready" object. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
}

beforeAll(async () => {
  if (!HAVE_OPENCODE) return;
  const bin = await ensureBinary();
  upstream = startFakeUpstream({ reply: () => REPLY });
  vault = makeVault([
    { dir: "people", key: "Zorblax", keywords: ["Zorblax"], body: "## who\nA merchant.\n" },
  ]);
  gateway = Bun.spawn(
    [bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0", "--json"],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  openaiBaseUrl = JSON.parse(await firstLine(gateway.stdout)).openai_base_url;
});

afterAll(async () => {
  if (!HAVE_OPENCODE) return;
  gateway.kill("SIGTERM");
  await gateway.exited;
  await upstream.close();
  removeDir(vault);
  for (const dir of scratch) removeDir(dir);
});

interface Setup {
  /** What goes into opencode.json, given the gateway's OpenAI base URL. */
  config(baseURL: string): object;
  path: string;
}

const SETUPS: Record<string, Setup> = {
  "a custom OpenAI-compatible provider": {
    path: "/v1/chat/completions",
    config: (baseURL) => ({
      provider: {
        lorecards: {
          npm: "@ai-sdk/openai-compatible",
          name: "lorecards gateway",
          options: { baseURL, apiKey: "sk-opencode" },
          models: { "fake-model": { name: "Fake model" } },
        },
      },
      model: "lorecards/fake-model",
    }),
  },
  "the built-in openai provider": {
    path: "/v1/responses",
    config: (baseURL) => ({
      provider: { openai: { options: { baseURL, apiKey: "sk-opencode" } } },
      model: "openai/gpt-5",
    }),
  },
  "the built-in anthropic provider": {
    path: "/v1/messages",
    config: (baseURL) => ({
      provider: { anthropic: { options: { baseURL, apiKey: "sk-ant-opencode" } } },
      model: "anthropic/claude-sonnet-4-5",
    }),
  },
};

interface Project {
  dir: string;
  home: string;
}

function newProject(setup: Setup): Project {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-opencode-home-"));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-opencode-project-"));
  scratch.push(home, dir);
  fs.writeFileSync(path.join(dir, "opencode.json"), JSON.stringify(setup.config(openaiBaseUrl), null, 2));
  return { dir, home };
}

/** `opencode run …` in the project, as a first-time user with no network; what it printed and the requests it made. */
async function runOpencode(project: Project, args: string[]) {
  const from = upstream.received.length;
  const { home } = project;
  const proc = Bun.spawn([OPENCODE, "run", ...args], {
    cwd: project.dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      XDG_CACHE_HOME: path.join(home, ".cache"),
      XDG_STATE_HOME: path.join(home, ".local", "state"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      npm_config_offline: "true",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: RUN_HANG_MS,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr, requests: upstream.received.slice(from) };
}

type Item = { role?: string; content?: unknown };

/** Chat Completions and Anthropic `messages`, or Responses `input`. */
function itemsOf(r: Received): Item[] {
  const body = JSON.parse(r.body) as { messages?: Item[]; input?: Item[] };
  return body.messages ?? body.input ?? [];
}

function textOf(item: Item | undefined): string {
  const c = item?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.map((p: { text?: string }) => p.text ?? "").join("\n");
}

const userTexts = (r: Received) =>
  itemsOf(r)
    .filter((i) => i.role === "user")
    .map(textOf);

/** The agent's own request, the one that offers tools (the other is opencode's title request). */
function agentRequest(requests: Received[]): Received {
  const withTools = requests.filter((r) => Array.isArray(JSON.parse(r.body).tools));
  expect(withTools).toHaveLength(1);
  return withTools[0]!;
}

describe.skipIf(!HAVE_OPENCODE)("opencode run through the gateway", () => {
  test.each(Object.keys(SETUPS))(
    "with %s at the gateway's /v1 base URL, the card reaches the upstream and opencode prints the reply",
    async (name) => {
      const setup = SETUPS[name]!;
      const run = await runOpencode(newProject(setup), [PROMPT]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(REPLY);
      expect(run.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
        run.requests.map(() => `POST ${setup.path}`),
      );
      expect(userTexts(agentRequest(run.requests)).at(-1)).toMatch(CARD_THEN_PROMPT);
    },
    testTimeout(1),
  );

  test(
    "a --continue turn gets the first turn's card back in place and no second copy",
    async () => {
      const project = newProject(SETUPS["a custom OpenAI-compatible provider"]!);
      const first = await runOpencode(project, [PROMPT]);
      expect(first.code, first.stderr).toBe(0);
      const second = await runOpencode(project, ["--continue", "And what does Zorblax sell?"]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain(REPLY);
      const [turn1, turn2] = userTexts(agentRequest(second.requests));
      expect(turn1).toBe(userTexts(agentRequest(first.requests))[0]!);
      expect(turn1).toMatch(CARD_THEN_PROMPT);
      expect(turn2).toBe('"And what does Zorblax sell?"');
    },
    testTimeout(2),
  );
});
