/**
 * One hook invocation, as named phases: parse stdin → (SessionStart: the boot block, boot.ts) → open the
 * engine → advance the session clock → read the transcript tail → recall (its budget stage keeps the
 * block under Claude Code's context cap; with `--inject index`, an index of the cards instead,
 * recall/stages/index-block.ts) → record (ledger, the turn record for stats and the context door, the index
 * recall, hit log) → answer. The caller turns any throw into exit 0 + stderr.
 */

import { DEFAULTS } from "../defaults.ts";
import { bestEffort, type Warn, warnOnStderr } from "../errors.ts";
import { type Markers, markersFromSecret, stripBlocks } from "../inject/index.ts";
import {
  type Engine,
  firedCards,
  hitEntry,
  injectedKeys,
  leftOutCards,
  newQueryId,
  openEngine,
  type RecallOptions,
  type RecallResult,
  recallRecordOf,
  sentCards,
  type Turn,
} from "../recall/index.ts";
import { openStore, type Store, stateUrl, type TurnRecord } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { learnOnce, ownWords } from "../style-surface/index.ts";
import { bootSession } from "./boot.ts";
import { parseHookInput } from "./input.ts";
import { beginTurn, conversationId, recordTurn } from "./ledger.ts";
import { readTranscriptTail } from "./transcript.ts";
import type { AskGit } from "./workspace.ts";

export interface HookOptions {
  vaultRoot: string;
  /** Create the vault with example cards when missing (the default vault only). */
  create?: boolean;
  /** Turns before the same card may be injected again; 0 = every match (default 6). */
  reinjectAfter?: number;
  /** Characters of cards per injection (default 800). */
  budget?: number;
  /** Turns of history scanned (default 3). */
  scanDepth?: number;
  /** Write hits.jsonl (default true). */
  log?: boolean;
  /** Names for macros, a token budget, the reach (`--char`, `--user`, `--budget-tokens`, `--reach`). */
  recall?: Pick<RecallOptions, "names" | "budgetTokens" | "reach" | "lore" | "books">;
  /** `index`: one line per card instead of its text (`--inject index`, recall/stages/index-block.ts). */
  inject?: "cards" | "index";
  /** Where the session ledger and the hit log live (state/ `openStore`); the vault's by default. */
  state?: string;
  /** Style memory learns from each prompt (default true; `--no-learn`), on this clock (style-surface/). */
  learn?: boolean;
  style?: StyleOptions;
  /** `--style-brief`: the session's boot block carries the style brief after the guide. */
  styleBrief?: boolean;
  /** Asks git for the working folder's remotes, for boot recall (hook/workspace.ts; tests inject it). */
  askGit?: AskGit;
  now?: () => Date;
  /** Non-fatal problems (the hit log could not be written); defaults to stderr. */
  warn?: (line: string) => void;
  /** Starts the keeper of a large vault, which lets the hook see edits written in place (vault/keeper.ts). */
  keeper?: () => void;
  /**
   * A running server's engine and store (cli/_hook-server.ts): used as they are, never closed. Without
   * them the run opens its own and closes them again, as a process of its own does.
   */
  shared?: { engine: Engine; store?: Store };
}

export const HOOK_DEFAULTS = {
  reinjectAfter: DEFAULTS.reinjectAfter,
  scanDepth: DEFAULTS.scanDepth,
} as const;

/**
 * Claude Code replaces hook context over 10,000 characters with a ~2 KB preview and a file path
 * (hooks reference, "Hook output"); stay well under it, since the cut has been seen below 10,000 when
 * counted differently. Recall's budget stage applies it to the whole answer, markers and framing
 * included: cards over it are left out from the end, a lone card too long is cut with an ellipsis.
 */
export const MAX_CONTEXT_CHARS = 9000;

/** Turns of transcript read beyond the scan depth, for cards whose own `scan_depth` is deeper. */
const MIN_HISTORY_TURNS = 8;

export interface HookResult {
  /** What to print on stdout: one JSON line, or "" when nothing is injected. */
  stdout: string;
  /** Keys of the injected cards, in order. */
  injected: string[];
}

const NOTHING: HookResult = { stdout: "", injected: [] };

/** Who says the hook's problems on stderr. */
const WHO = "lorecards hook";

function warnOf(options: Pick<HookOptions, "warn">): Warn {
  return options.warn ?? warnOnStderr;
}

export async function runHook(stdin: string, options: HookOptions): Promise<HookResult> {
  const input = parseHookInput(stdin);
  const now = options.now ?? (() => new Date());
  if (input.event === "SessionStart") {
    if (!input.sessionId || input.source === "resume") return NOTHING;
    const store = await openHookStore(options, options.vaultRoot);
    try {
      const boot = await bootSession(input, store, {
        vaultRoot: options.vaultRoot,
        budget: options.budget,
        maxContextChars: MAX_CONTEXT_CHARS,
        now,
        askGit: options.askGit,
        opening: { styleBrief: options.styleBrief, style: options.style, warn: warnOf(options), who: WHO },
        lore: options.recall?.lore,
        books: options.recall?.books,
      });
      if (boot === undefined) return NOTHING;
      const answer = { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: boot.block } };
      return { stdout: `${JSON.stringify(answer)}\n`, injected: boot.cards };
    } finally {
      await store.close();
    }
  }
  if (input.event !== "UserPromptSubmit" || input.prompt.trim() === "") return NOTHING;

  // A cold process: save a rebuilt index and matcher so the next prompt starts warm.
  const engine =
    options.shared?.engine ??
    (await openEngine(options.vaultRoot, {
      create: options.create ?? false,
      persist: true,
      ...(options.keeper && { keeper: options.keeper }),
    }));
  const root = engine.vault.root;
  const reinjectAfter = options.reinjectAfter ?? HOOK_DEFAULTS.reinjectAfter;
  const scanDepth = options.scanDepth ?? HOOK_DEFAULTS.scanDepth;
  // Opening is cheap: the state file is only opened for a session's ledger (bench/hook.ts).
  const store = options.shared?.store ?? (await openHookStore(options, root));
  let learned: Promise<void> | false = false;
  try {
    const markers = markersFromSecret(await store.markerSecret());
    const clean = (text: string) => stripBlocks(text, markers);
    const conversation = input.sessionId ? conversationId(input.sessionId) : undefined;
    // Style memory hears what the person typed, whatever recall finds; awaited before the store closes.
    learned = options.learn !== false && learnPrompt(options, root, conversation, input.prompt, markers);
    const state = conversation
      ? await beginTurn(store, conversation, reinjectAfter, now().getTime())
      : undefined;
    const turns = transcriptTurns(input.transcriptPath, input.prompt, scanDepth, clean);
    const index =
      options.inject === "index" ? { session: conversation ?? "none", query: newQueryId() } : undefined;
    const result = await engine.recall(turns, {
      ...options.recall,
      budget: options.budget,
      scanDepth,
      inContext: state?.inContext,
      sent: state?.sent,
      candidates: false,
      markers,
      maxContextChars: MAX_CONTEXT_CHARS,
      // The session's prompts are its turns: a seed per session and turn, as the gateway's per conversation.
      seed: state && `${input.sessionId}:${state.turn}`,
      ...(conversation !== undefined && { conversationId: conversation }),
      history: state?.history,
      index,
      ...(state?.lore && { lore: state.lore }),
    });
    const block = result.blocks[0]?.wrapped;
    const listed = recallRecordOf(result, "hook", now().getTime());
    // Queued now, it shares the group commit of the writes below.
    const warn = warnOf(options);
    const keptRecall =
      listed && bestEffort(() => store.recordRecall(listed), warn, `${WHO}: recall not recorded`);
    if (conversation && state) {
      const recalled = { cards: sentCards(result), timed: result.timed, before: state.history.memory };
      const at = now().getTime();
      // Both writes wait for the same group commit. A prompt that fired nothing has nothing to show
      // in the door, and no usage ever reaches the hook: it is not recorded (a cold start saved).
      await Promise.all([
        recordTurn(store, conversation, state.turn, recalled, at),
        firedCards(result).length > 0 &&
          bestEffort(
            () => store.recordTurn(turnRecordOf(conversation, state.turn, at, input.prompt, block, result)),
            warn,
            `${WHO}: turn not recorded`,
          ),
      ]);
    }
    await keptRecall;
    if (block === undefined) return NOTHING;
    if (options.log !== false) {
      // The person's own words, as style memory takes them: both keep the same one excerpt of it.
      const entry = hitEntry("hook", result, ownWords(input.prompt, markers), now());
      await bestEffort(() => store.appendHits([entry]), warn, `${WHO}: hit log not written`);
    }
    const answer = {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: block },
    };
    return { stdout: `${JSON.stringify(answer)}\n`, injected: injectedKeys(result) };
  } finally {
    await learned;
    if (store !== options.shared?.store) await store.close();
    if (engine !== options.shared?.engine) engine.close();
  }
}

/** Each prompt once (Claude Code sends a prompt once; a tool loop sends none); it never throws. */
function learnPrompt(
  options: HookOptions,
  vaultRoot: string,
  conversation: string | undefined,
  prompt: string,
  markers: Markers,
): Promise<void> {
  const learning = { vaultRoot, style: options.style, warn: warnOf(options), who: WHO };
  return learnOnce(learning, conversation ?? "hook", ownWords(prompt, markers));
}

function openHookStore(options: HookOptions, root: string): Promise<Store> {
  return openStore(options.state ?? stateUrl(root), { warn: options.warn });
}

/** History from the transcript plus the prompt as the current message. */
function transcriptTurns(
  file: string | undefined,
  prompt: string,
  scanDepth: number,
  clean: (t: string) => string,
): Turn[] {
  const history = readTranscriptTail(file, { messages: Math.max(scanDepth, MIN_HISTORY_TURNS) * 2, clean });
  const current = clean(prompt);
  // Claude Code may already have written this prompt to the transcript: do not count it twice.
  const last = history[history.length - 1];
  if (last?.role === "user" && last.text === current.trim()) history.pop();
  return [...history, { role: "user", text: current }];
}

/**
 * What this prompt added, for `lorecards stats` and the context door: the additionalContext as one
 * volatile block. Claude Code keeps it in its transcript, so nothing is replayed; no usage ever
 * reaches the hook, so its turns count characters, not tokens.
 */
function turnRecordOf(
  conversation: string,
  turn: number,
  at: number,
  prompt: string,
  block: string | undefined,
  result: RecallResult,
): TurnRecord {
  const chars = prompt.length + (block?.length ?? 0);
  return {
    conversation,
    turn,
    at,
    surface: "hook",
    blocks:
      block === undefined
        ? []
        : [{ tier: "volatile", where: "additionalContext", text: block, cards: result.blocks[0]!.cards }],
    replayedChars: 0,
    leftOut: leftOutCards(result).map((c) => ({ id: c.id, reason: c.reason })),
    ...(result.lore !== "auto" && { lore: result.lore }),
    promptChars: chars,
    counterfactual: { promptChars: chars, cachedChars: 0 },
    sharedChars: 0,
  };
}
