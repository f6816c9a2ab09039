/**
 * The context door as the surfaces open it (`lorecards explain`, `POST /api/explain`): one dry-run
 * recall on an engine and its explanation (explain.ts). Given turns are replayed one user message at a
 * time, as `try --turns` does; given what a conversation remembers (its ledger and timed memory, which
 * the surface reads from its store), the recall is that conversation's next turn instead: the cards
 * its ledger holds count as in context (there is no request whose messages replay could be checked
 * against, so the ledger stands for them) and its timed effects run on its own clock. Nothing is written: no hit, no ledger row, no index.
 */
import { DEFAULTS } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import {
  type ConversationHistory,
  type Engine,
  type RecallOptions,
  sentVersions,
  simulate,
  type Turn,
} from "../recall/index.ts";
import type { Conversation } from "../state/index.ts";
import { cardsNamed, type Explanation, explain } from "./explain.ts";

export interface DoorOptions extends RecallOptions {
  /** Card names asked about; one that finds no card is `not_found`. */
  cards?: readonly string[];
  /** How the surface calls the names, for that error: `--card`, `cards`. */
  field?: string;
  /**
   * What a conversation remembers: its next turn is explained, under the lore switch set for its
   * session (MCP `set_lore`) unless the caller gives one.
   */
  conversation?: Pick<Conversation, "id" | "turn" | "injections" | "timed" | "lore">;
  /**
   * Turns before a card the ledger holds may go in again (0 = every time). Default: the hook's
   * (DEFAULTS.reinjectAfter) for a hook session (`hook:…`); never for the gateway's, whose replay keeps
   * a card in context while the message it went into is sent again.
   */
  reinjectAfter?: number;
}

export interface DoorAnswer extends Explanation {
  /** The conversation explained, and the turn its next message would be. */
  conversation: { id: string; turn: number } | null;
}

export async function openDoor(
  engine: Engine,
  turns: readonly Turn[],
  options: DoorOptions = {},
): Promise<DoorAnswer> {
  const { cards: names = [], field = "card", conversation, reinjectAfter, ...recallOptions } = options;
  const named = cardsNamed(await engine.compiled(recallOptions.books), names);
  if (named.unknown.length > 0) {
    const list = named.unknown.map((n) => `"${n}"`).join(", ");
    throw new LoreError("not_found", `${field}: no card named ${list}`);
  }
  const next = conversation ? conversation.turn + 1 : undefined;
  const ledger = conversation ? ledgerOf(conversation) : undefined;
  // The turns are the request: a card whose text one of them already holds is not sent twice (quoted).
  const opts: RecallOptions = {
    candidates: false,
    quotedIn: turns.map((t) => t.text),
    ...recallOptions,
    lore: recallOptions.lore ?? conversation?.lore,
  };
  const result =
    conversation && ledger && next !== undefined
      ? await engine.recall(turns, {
          ...opts,
          inContext: inContextAt(ledger, next, reinjectAfter ?? defaultReinject(conversation.id)),
          sent: sentOf(conversation),
          history: historyAt(next, conversation.timed),
        })
      : await simulate(
          (t, o) => engine.recall(t, o),
          turns,
          opts,
          await engine.reach(opts.scanDepth, opts.books),
        );
  const explanation = explain(result, { turns, asked: named.cards, ...recallOptions, ledger });
  return { ...explanation, conversation: conversation ? { id: conversation.id, turn: next! } : null };
}

function defaultReinject(id: string): number {
  return isHookSession(id) ? DEFAULTS.reinjectAfter : Number.POSITIVE_INFINITY;
}

/** The hook keys its sessions `hook:<session_id>` (hook/ledger.ts); the gateway's ids never start so. */
function isHookSession(id: string): boolean {
  return id.startsWith("hook:");
}

/** Card id → the last turn it went in. */
function ledgerOf(conversation: Pick<Conversation, "injections">): Map<string, number> {
  const ledger = new Map<string, number>();
  for (const inj of conversation.injections) ledger.set(inj.id, Math.max(inj.turn, ledger.get(inj.id) ?? 0));
  return ledger;
}

/**
 * What the conversation last sent of each card, so a card edited since shows as edited and sent
 * again: the gateway's replay does that; the hook never sends a card in context again, so a hook
 * session (`hook:…`) has nothing to compare.
 */
function sentOf(conversation: Pick<Conversation, "id" | "injections">): Map<string, string> | undefined {
  if (isHookSession(conversation.id)) return undefined;
  return sentVersions([...conversation.injections].sort((a, b) => a.turn - b.turn));
}

/** The cards that went in fewer than `reinjectAfter` turns before turn `next`. */
function inContextAt(ledger: ReadonlyMap<string, number>, next: number, reinjectAfter: number): Set<string> {
  const ids = new Set<string>();
  for (const [id, turn] of ledger) if (next - turn >= 0 && next - turn < reinjectAfter) ids.add(id);
  return ids;
}

/** User message `next` of a conversation where person and model take turns (the hook's clock too). */
function historyAt(next: number, memory: Conversation["timed"]): ConversationHistory {
  return { messages: 2 * next - 1, assistantMessages: next - 1, memory };
}
