/**
 * The hook asks a running server first. Claude Code starts `lorecards hook` for every prompt; when a
 * gateway or the editor runs on the same vault, it holds the index, the matcher and the state open
 * already, and answers over a Unix socket (cli/_hook-server.ts) in a fraction of what a cold process
 * spends loading and opening them. Only a prompt is asked there (UserPromptSubmit; a session's start
 * is once a session), and only with the argv a script writes (`hook` and its flags). When no server
 * answers, in time or at all, the hook runs here as before, with the stdin already read.
 *
 * This module is loaded by main.ts before the CLI: it imports nothing of ours but the vault's
 * location and the socket's, so asking costs a cold start little more than the runtime itself.
 */
import { existsSync, fstatSync } from "node:fs";
import { resolveVaultPath } from "../vault/where.ts";
import { hookSocketPath, privateSocketFolder } from "./_hook-socket.ts";
import { writeAll } from "./_out.ts";
import { readAllStdin } from "./_stdin.ts";

/** How long the hook waits for a server before it runs itself (Claude Code's own limit is 60 s). */
const ANSWER_WITHIN_MS = 10_000;

/** The environment a hook's options read (cli/hook.ts `hookOptions`): passed on to the server. */
const PASSED_ENV = /^(LORECARDS_|STYLE_MEMORY_)|^(HOME|USERPROFILE|TMPDIR)$/;

let stdinRead: string | undefined;

/** The hook's stdin when it was read here already (a server was asked and did not answer). */
export function readStdin(): string | undefined {
  const text = stdinRead;
  stdinRead = undefined;
  return text;
}

/** What a server sends back: the hook's stdout and its stderr lines, or `fallback` to run here. */
export interface HookAnswer {
  stdout?: string;
  stderr?: string[];
  fallback?: string;
}

/** True when a running server answered the hook in `argv` (its output is written); false: run it here. */
export async function askedServer(argv: readonly string[]): Promise<boolean> {
  const hook = hookArgv(argv);
  if (hook === undefined) return false;
  const vault = resolveVaultPath(hook.vault, process.env);
  const socket = hookSocketPath(vault, process.env);
  if (socket === undefined || !existsSync(socket) || !privateSocketFolder(socket, false)) return false;
  const stdin = stdinIsPiped() ? readAllStdin() : "";
  stdinRead = stdin;
  if (!isPrompt(stdin)) return false;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => PASSED_ENV.test(k)));
  const answer = await ask(
    socket,
    JSON.stringify({ vault, argv: hook.rest, stdin, env, cwd: process.cwd() }),
  );
  if (answer === undefined || answer.fallback !== undefined) return false;
  stdinRead = undefined;
  if (answer.stdout) writeAllSync(1, answer.stdout);
  for (const line of answer.stderr ?? []) writeAllSync(2, `${line}\n`);
  return true;
}

/** `hook` and what follows it, with `--vault` (given before or after it) taken out; else undefined. */
function hookArgv(argv: readonly string[]): { vault?: string; rest: string[] } | undefined {
  let vault: string | undefined;
  const rest: string[] = [];
  let seen = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--vault") vault = argv[++i];
    else if (a.startsWith("--vault=")) vault = a.slice(8);
    else if (!seen && !a.startsWith("-")) {
      if (a !== "hook") return undefined;
      seen = true;
    } else if (!seen || a === "--help" || a === "-h") return undefined;
    else rest.push(a);
  }
  return seen ? { vault, rest } : undefined;
}

/** Only a prompt goes to a server; anything else (and what does not parse) runs here. */
function isPrompt(stdin: string): boolean {
  try {
    return (JSON.parse(stdin) as { hook_event_name?: unknown }).hook_event_name === "UserPromptSubmit";
  } catch {
    return false;
  }
}

function stdinIsPiped(): boolean {
  try {
    return !fstatSync(0).isCharacterDevice();
  } catch {
    return false;
  }
}

/** One request and its answer over `socket`; undefined when nothing (whole) came back in time. */
function ask(socket: string, request: string): Promise<HookAnswer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (answer: HookAnswer | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), ANSWER_WITHIN_MS);
    Bun.connect({
      unix: socket,
      socket: {
        open(s) {
          s.write(`${request}\n`);
        },
        data(_s, data) {
          chunks.push(Buffer.from(data));
        },
        close() {
          done(parseAnswer(Buffer.concat(chunks).toString("utf8")));
        },
        error() {
          done(undefined);
        },
      },
    }).catch(() => done(undefined));
  });
}

function parseAnswer(text: string): HookAnswer | undefined {
  if (!text.endsWith("\n")) return undefined;
  try {
    const value = JSON.parse(text) as HookAnswer;
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

function writeAllSync(fd: number, text: string): void {
  try {
    writeAll(fd, text);
  } catch {
    // a reader that went away: nothing left to tell, and a hook exits 0 whatever happens
  }
}
