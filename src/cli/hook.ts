// `lorecards hook`: the Claude Code UserPromptSubmit hook. Reads the hook JSON on stdin, prints
// `hookSpecificOutput.additionalContext` when cards match and nothing otherwise. It exits 0 whatever
// happens (a message on stderr): in Claude Code, exit 2 from this hook would erase the user's prompt.

import { fstatSync } from "node:fs";
import { describeError } from "../errors.ts";
import type { HookOptions } from "../hook/index.ts";
import { resolveVaultPath } from "../vault/where.ts";
import {
  budgetArg,
  injectModeArg,
  learnArg,
  logArg,
  recallArgs,
  recallFlags,
  reinjectArg,
  scanDepthArg,
  styleBriefArg,
} from "./_args.ts";
import { writeAll } from "./_out.ts";
import { selfKeeper } from "./_self.ts";
import { defineCommand, vaultArg, wholeNumber } from "./_shared.ts";
import { readAllStdin } from "./_stdin.ts";
import { namedStore, storeArg } from "./_store.ts";
import { learningFromEnv, styleOptions } from "./_style-clock.ts";
import { readStdin } from "./hook-client.ts";

/** The hook's flags, also parsed by a server that answers the hook (cli/_hook-server.ts). */
export const hookArgs = {
  ...reinjectArg("prompts"),
  ...injectModeArg,
  ...budgetArg,
  ...scanDepthArg,
  ...recallArgs,
  ...logArg("record surfacings in hits.jsonl", "do not write hits.jsonl"),
  ...learnArg,
  ...styleBriefArg,
  ...storeArg,
  ...vaultArg,
  // The hook's answer is JSON already (Claude Code's contract); the flag is accepted for scripts
  // that pass --json to every command, and changes nothing.
  json: { type: "boolean", description: "accepted for uniformity: the hook always answers in JSON" },
} as const;

export const hookCommand = defineCommand({
  meta: { name: "hook", description: "the Claude Code UserPromptSubmit hook (reads the hook JSON on stdin)" },
  args: hookArgs,
  async run({ args }) {
    try {
      // The client read stdin already when it asked a running server, which did not answer.
      const stdin = readStdin() ?? ((await stdinIsTerminal()) ? "" : readAllStdin());
      const { runHook } = await import("../hook/index.ts");
      const options = hookOptions(args, process.env);
      const result = await runHook(stdin, { ...options, keeper: selfKeeper(options.vaultRoot) });
      if (result.stdout) answer(result.stdout);
    } catch (err) {
      complain(err);
    }
    return 0;
  },
});

/** The hook's arguments as parsed for this command. */
export type HookArgs = Parameters<NonNullable<typeof hookCommand.run>>[0]["args"];

/**
 * What the flags and the environment ask of one hook run: here, or in a running server that answers
 * the hook for this vault (cli/_hook-server.ts), which passes the environment the client sent.
 */
export function hookOptions(args: HookArgs, env: Record<string, string | undefined>): HookOptions {
  const vaultRoot = resolveVaultPath(args.vault, env);
  return {
    vaultRoot,
    create: !args.vault && !env.LORECARDS_VAULT,
    reinjectAfter: wholeNumber(args["reinject-after"], "--reinject-after"),
    budget: wholeNumber(args.budget, "--budget"),
    scanDepth: wholeNumber(args["scan-depth"], "--scan-depth"),
    log: args.log !== false,
    recall: recallFlags(args),
    inject: args.inject,
    learn: args.learn !== false && learningFromEnv(env),
    style: styleOptions(env),
    styleBrief: args["style-brief"] === true,
    state: namedStore(args, env),
  };
}

/**
 * Whether stdin is a terminal (run by hand: nothing to read). Asked without `process.stdin`, whose
 * stream costs about 5 ms to build; only a character device can be a terminal, and node:tty is loaded
 * only for one.
 */
async function stdinIsTerminal(): Promise<boolean> {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty } = await import("node:tty");
  return isatty(0);
}

/**
 * One synchronous write to fd 1. process.stdout reports a reader that went away (EPIPE) or a full
 * device as an asynchronous 'error' event, which would end the process with exit 1; a hook must exit 0.
 */
function answer(text: string): void {
  try {
    writeAll(1, text);
  } catch (err) {
    complain(err);
  }
}

function complain(err: unknown): void {
  try {
    writeAll(2, `lorecards hook: ${describeError(err)}\n`);
  } catch {
    // stderr is gone too: nothing left to tell.
  }
}
