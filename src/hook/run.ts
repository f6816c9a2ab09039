/**
 * One hook invocation, as named phases: parse stdin → (SessionStart: reset, answer nothing) → open the
 * engine → advance the session clock → read the transcript tail → recall → fit under Claude Code's
 * context cap → record (ledger, hit log) → answer. The caller turns any throw into exit 0 + stderr.
 */

import { type Markers, markersFromSecret, stripBlocks, wrapBlock } from "../inject/index.ts";
import { DEFAULT_FRAMING, type FiredCard, openEngine, renderContext, type Turn } from "../recall/index.ts";
import { appendHits, markerSecret, openSqliteStore, type Store } from "../state/index.ts";
import { parseHookInput } from "./input.ts";
import { beginTurn, conversationId, recordInjections, resetSession } from "./ledger.ts";
import { readTranscriptTail } from "./transcript.ts";

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
  now?: () => Date;
  /** Non-fatal problems (the hit log could not be written); defaults to stderr. */
  warn?: (line: string) => void;
}

export const HOOK_DEFAULTS = { reinjectAfter: 6, scanDepth: 3 } as const;

/**
 * Claude Code replaces hook context over 10,000 characters with a ~2 KB preview and a file path
 * (hooks reference, "Hook output"); stay well under it, since the cut has been seen below 10,000 when
 * counted differently.
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

export async function runHook(stdin: string, options: HookOptions): Promise<HookResult> {
  const input = parseHookInput(stdin);
  const now = options.now ?? (() => new Date());
  if (input.event === "SessionStart") {
    // The context was compacted or cleared: earlier hook context is gone, cards may go in again.
    if (input.sessionId && (input.source === "compact" || input.source === "clear")) {
      withStore(options.vaultRoot, (s) => resetSession(s, conversationId(input.sessionId!), now().getTime()));
    }
    return NOTHING;
  }
  if (input.event !== "UserPromptSubmit" || input.prompt.trim() === "") return NOTHING;

  const engine = await openEngine(options.vaultRoot, { create: options.create ?? false });
  const root = engine.vault.root;
  const reinjectAfter = options.reinjectAfter ?? HOOK_DEFAULTS.reinjectAfter;
  const scanDepth = options.scanDepth ?? HOOK_DEFAULTS.scanDepth;
  const markers = markersFromSecret(markerSecret(root));
  const clean = (text: string) => stripBlocks(text, markers);

  const store = input.sessionId ? openSqliteStore(root) : undefined;
  try {
    const conversation = input.sessionId ? conversationId(input.sessionId) : "";
    const state = store
      ? beginTurn(store, conversation, reinjectAfter, now().getTime())
      : { turn: 0, inContext: new Set<string>() };
    const turns = transcriptTurns(input.transcriptPath, input.prompt, scanDepth, clean);
    const result = await engine.recall(turns, {
      budget: options.budget,
      scanDepth,
      inContext: state.inContext,
      candidates: false,
    });
    const byId = new Map(result.fired.map((f) => [f.id, f]));
    const chosen = result.injectedIds.map((id) => byId.get(id)!);
    const fitted = fitContext(chosen, markers);
    if (fitted.cards.length === 0) return NOTHING;
    if (store) recordInjections(store, conversation, state.turn, fitted.cards, now().getTime());
    if (options.log !== false) logHits(root, fitted.cards, input.prompt, now(), options.warn);
    const answer = {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: fitted.text },
    };
    return { stdout: `${JSON.stringify(answer)}\n`, injected: fitted.cards.map((c) => c.key) };
  } finally {
    store?.close();
    engine.close();
  }
}

function withStore(root: string, fn: (store: Store) => void): void {
  const store = openSqliteStore(root);
  try {
    fn(store);
  } finally {
    store.close();
  }
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
 * The cards that fit under MAX_CONTEXT_CHARS once wrapped, in order. Cards are dropped from the end;
 * a lone card that is still too long is cut, so the top card always gets in, as with the budget.
 */
export function fitContext(
  cards: readonly FiredCard[],
  markers: Markers,
): { cards: FiredCard[]; text: string } {
  const kept = [...cards];
  const wrap = (blocks: string[]) => wrapBlock(renderContext(blocks, DEFAULT_FRAMING), markers);
  while (kept.length > 0) {
    const text = wrap(kept.map((c) => c.text));
    if (text.length <= MAX_CONTEXT_CHARS) return { cards: kept, text };
    if (kept.length === 1) break;
    kept.pop();
  }
  if (kept.length === 0) return { cards: [], text: "" };
  const room = MAX_CONTEXT_CHARS - (wrap(["x…"]).length - 1);
  let body = "";
  for (const ch of kept[0]!.text) {
    if (body.length + ch.length > room) break;
    body += ch;
  }
  return { cards: kept, text: wrap([`${body}…`]) };
}

function logHits(
  root: string,
  cards: FiredCard[],
  prompt: string,
  at: Date,
  warn?: (line: string) => void,
): void {
  try {
    appendHits(root, [
      {
        time: at.toISOString(),
        source: "hook",
        keys: cards.map((c) => c.key),
        words: [...new Set(cards.flatMap((c) => c.hits))],
        message: prompt.slice(0, 200),
      },
    ]);
  } catch (err) {
    (warn ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      `lorecards hook: hit log not written: ${String(err)}`,
    );
  }
}
