/**
 * Running the real Claude Code and Codex CLIs (pinned test clients, test/package.json) against a
 * base URL on 127.0.0.1, as shared/fixtures/real/clients/README.md drove them: a fresh `HOME` (and
 * `CODEX_HOME`) per client, a dummy key, Claude Code's opt-outs of everything but the chat. The
 * parent's environment is not inherited (CI may hold real keys and settings): only `PATH` goes along,
 * because Codex's launcher is a Node script.
 */

import fs from "node:fs";
import path from "node:path";
import { clientBin, clientFile } from "./clients.ts";

export interface CliRun {
  args: string[];
  /** Exit code, or null when the run was killed (see `signal`). */
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** How long one CLI run may take before it is killed: a client waiting on a dead upstream retries. */
export const RUN_TIMEOUT_MS = 120_000;

export const CLAUDE = clientFile("@anthropic-ai/claude-code", "bin/claude.exe");
/** The newest Claude Code release installed beside the pinned one (test/package.json `claude-code-newest`). */
export const CLAUDE_NEWEST = clientFile("claude-code-newest", "bin/claude.exe");
export const CODEX = clientBin("codex");

export async function run(cmd: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return {
    args: cmd.slice(1),
    code: proc.signalCode ? null : code,
    signal: proc.signalCode === null ? null : String(proc.signalCode),
    stdout,
    stderr,
    ms: Math.round(performance.now() - started),
  };
}

export interface ClaudeEnv {
  home: string;
  cwd: string;
  /** The origin Claude Code talks to; it appends `/v1/messages` itself. */
  baseUrl: string;
  /** Keep Claude Code's side requests (its title request) on, as a person's install has them. */
  sideRequests?: boolean;
  /** Another Claude Code binary than the pinned one (the newest release, `CLAUDE_NEWEST`). */
  bin?: string;
}

/** `claude <args>` in print mode; the README's environment. */
export function runClaude(args: string[], at: ClaudeEnv): Promise<CliRun> {
  // Claude Code keeps scratch files in `$TMPDIR/claude-<uid>`: inside HOME they go when HOME goes.
  const tmp = path.join(at.home, "tmp");
  fs.mkdirSync(tmp, { recursive: true });
  return run([at.bin ?? CLAUDE, ...args], at.cwd, {
    HOME: at.home,
    TMPDIR: tmp,
    ANTHROPIC_BASE_URL: at.baseUrl,
    ANTHROPIC_API_KEY: "dummy",
    ...(!at.sideRequests && { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  });
}

export interface CodexEnv {
  home: string;
  cwd: string;
  /** The OpenAI base URL, `/v1` included: Codex appends `/responses`. */
  baseUrl: string;
}

const KEY_VAR = "LORECARDS_E2E_OPENAI_KEY";

/**
 * `$HOME/.codex/config.toml` with one provider on the Responses API (Codex config reference:
 * `model_providers`, `wire_api`, `env_key`), a read-only sandbox that never asks, and no update
 * check or analytics, which would go to the internet.
 */
export function writeCodexConfig(at: CodexEnv): string {
  const codexHome = path.join(at.home, ".codex");
  fs.mkdirSync(codexHome, { recursive: true });
  const toml = [
    'model = "gpt-fake"',
    'model_provider = "lorecards-e2e"',
    'sandbox_mode = "read-only"',
    'approval_policy = "never"',
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[model_providers.lorecards-e2e]",
    'name = "fake upstream through lorecards"',
    `base_url = ${JSON.stringify(at.baseUrl)}`,
    'wire_api = "responses"',
    `env_key = "${KEY_VAR}"`,
    "",
  ].join("\n");
  fs.writeFileSync(path.join(codexHome, "config.toml"), toml);
  return codexHome;
}

/** `codex <args>`; `--strict-config` so a renamed config key fails loudly instead of being ignored. */
export function runCodex(args: string[], at: CodexEnv): Promise<CliRun> {
  const codexHome = writeCodexConfig(at);
  const [sub, ...rest] = args;
  const strict = sub === "exec" ? ["exec", "--strict-config", ...rest] : args;
  return run([CODEX, ...strict], at.cwd, { HOME: at.home, CODEX_HOME: codexHome, [KEY_VAR]: "dummy" });
}

/** One line per run, for failure messages: what ran, how it ended, what it said. */
export function describeRun(r: CliRun): string {
  const end = r.signal ? `killed (${r.signal}) after ${r.ms} ms` : `exit ${r.code} after ${r.ms} ms`;
  return `${r.args.join(" ")}: ${end}\nstdout: ${r.stdout.trim()}\nstderr: ${r.stderr.trim().slice(-2000)}`;
}

/** A client's program, where the test install links it (clients.ts). */
export const binOf = (name: string) => clientBin(name);

/** Qwen Code (`qwen`), print mode, on an OpenAI-compatible base URL (`/v1` included). */
export function runQwen(args: string[], at: CodexEnv): Promise<CliRun> {
  return run([binOf("qwen"), ...args], at.cwd, {
    HOME: at.home,
    OPENAI_BASE_URL: at.baseUrl,
    OPENAI_API_KEY: "dummy",
    OPENAI_MODEL: "gpt-fake",
  });
}

/** Continue's CLI (`cn`), headless, with one OpenAI-compatible model in a config of its own. */
export function runContinue(args: string[], at: CodexEnv): Promise<CliRun> {
  const config = path.join(at.home, "continue.yaml");
  const yaml = [
    "name: lorecards-e2e",
    "version: 1.0.0",
    "schema: v1",
    "models:",
    "  - name: fake",
    "    provider: openai",
    "    model: gpt-fake",
    `    apiBase: ${at.baseUrl}`,
    "    apiKey: dummy",
    "    roles: [chat]",
    "",
  ].join("\n");
  fs.writeFileSync(config, yaml);
  return run([binOf("cn"), "-p", "--config", config, ...args], at.cwd, { HOME: at.home });
}

/**
 * Gemini CLI (`gemini`) on a Gemini API origin (`GOOGLE_GEMINI_BASE_URL`, no path), with an API key as
 * its auth in its settings file and the working folder trusted, so print mode asks nothing.
 */
export function runGemini(args: string[], at: ClaudeEnv): Promise<CliRun> {
  const dir = path.join(at.home, ".gemini");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
  );
  return run([binOf("gemini"), ...args], at.cwd, {
    HOME: at.home,
    GEMINI_API_KEY: "dummy",
    GOOGLE_GEMINI_BASE_URL: at.baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
  });
}
