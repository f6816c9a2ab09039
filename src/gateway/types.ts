/**
 * The shapes the gateway's request pipeline (pipeline.ts) is configured and answered with: how a
 * gateway injects (`--inject`, the window, the budget, …), what it needs from the outside world (a
 * vault on disk behind it: deps.ts), and what one request came to.
 */
import type { Warn } from "../errors.ts";
import type { Markers } from "../inject/index.ts";
import type { BookAsk, RecallOptions, RecallResult, Turn } from "../recall/index.ts";
import type { HitEntry, Store } from "../state/index.ts";
import type { SeenMessage } from "../style-surface/index.ts";

export interface InjectSettings {
  /** `index`: one line per card instead of its text, where `user` puts cards (recall/stages/index-block.ts). */
  inject: "user" | "system" | "index";
  /** Turns of history scanned (recall's scanDepth). */
  window: number;
  /**
   * Turns before a card still in context may go in again. Unset: never while the block it went in is
   * replayed (replay keeps it in front of the model); without replay, the original tool's 6.
   */
  reinjectAfter?: number;
  /** `--budget`: characters of the automatic half; unset = the vault's settings.yaml, else recall's default. */
  budget?: number;
  framing?: string;
  log: boolean;
  /** Names for macros, a token budget, the reach (`--char`, `--user`, `--budget-tokens`, `--reach`). */
  recall?: Pick<RecallOptions, "names" | "budgetTokens" | "reach" | "lore" | "books">;
  /**
   * Stable and volatile tiers, placements and Anthropic cache breakpoints (default true). `false` is
   * replay as it was before tiers (one block with the newest message), kept so benchmarks can measure
   * what tiers buy.
   */
  tiers?: boolean;
  /**
   * Re-insert earlier blocks (default true). `false` is the plain per-turn injection of the original
   * tool, kept only so benchmarks can measure what replay buys; dedupe then uses the ledger alone.
   */
  replay?: boolean;
  /**
   * Give a request the gateway writes OpenAI's `prompt_cache_key` (`--prompt-cache-key`). Unset: only
   * when the upstream is OpenAI's own API (handler.ts), since a server that merely speaks its protocol
   * may refuse a field it does not know, and would then refuse exactly the requests that got cards.
   */
  promptCacheKey?: boolean;
}

/** What the pipeline needs from the outside world; each may throw, and a throw means "fail open". */
export interface PipelineDeps {
  /**
   * False while the vault is away (moved, deleted, not created yet): requests then pass through
   * unchanged, nothing is created on disk, and this has said so once on stderr, not per request.
   */
  ready(): boolean;
  /** How many turns, newest first, recall reads for a window of `window` (a card of `books` may ask for more). */
  reach(window: number, books?: BookAsk): Promise<number>;
  recall(turns: Turn[], opts: RecallOptions): Promise<RecallResult>;
  store(): Promise<Store>;
  markers(): Promise<Markers>;
  logHits(entries: HitEntry[]): Promise<void>;
  /**
   * What opens a conversation's boot block: the vault's guide (vault/guide.ts) and, with
   * `--style-brief`, the style brief for `context` (the newest message); absent or "" = none.
   */
  guide?(context: string): Promise<string>;
  now(): number;
  warn: Warn;
  /** Style memory (style-surface/): hands it a user message, later; never waits, never throws. Absent: `--no-learn`. */
  observe?(message: SeenMessage): void;
}

/**
 * The conversation and turn a request was counted as, for the response's usage; no turn for a
 * request the gateway keeps nothing of (a conversation that never got a card).
 */
export interface Counted {
  conversation?: string;
  turn?: number;
  /** Cards whose text the request already held (the same book in the client's World Info): not sent. */
  quoted?: string[];
  /**
   * Settles once what the turn recorded is committed (never rejects: a failure was said on stderr).
   * The answer's end waits for it, so a client never sends the next turn before its state is stored.
   */
  durable?: Promise<void>;
}

export type Outcome =
  | ({
      changed: false;
      reason: string /** The reason is worth saying once on stderr. */;
      notice?: boolean;
    } & Counted)
  /** `body` is a Blob when the body was large enough to be written in steps (_serialise.ts). */
  | ({
      changed: true;
      body: string | Blob;
      injected: string[];
      conversation: string;
      turn: number;
    } & Counted);
