/**
 * One chat request, start to end: read the body through its adapter, find the conversation and its
 * replay records, re-insert what still applies, ask recall for new cards (with the ones in context set
 * aside, and the conversation's timed-effects memory), place them, and record what was done. Anything
 * that throws here is caught by the handler, which then forwards the request unchanged (fail open).
 */

import { DEFAULTS } from "../defaults.ts";
import type { Markers } from "../inject/index.ts";
import { findBlocks, stripBlocks } from "../inject/index.ts";
import type { SeenMessage } from "../learn/index.ts";
import {
  type Chosen,
  type ConversationHistory,
  chosenCards,
  hitEntry,
  leftOutCards,
  namesIn,
  newQueryId,
  type RecallOptions,
  type RecallResult,
  recallRecordOf,
  type Turn,
  typedText,
} from "../recall/index.ts";
import type { Conversation, HitEntry, RecallRecord, Store } from "../state/index.ts";
import type { TurnRecord } from "../state/types.ts";
import { letOthersRun } from "./_body.ts";
import { stewardBreakpoints } from "./_cache-steward.ts";
import { type Adapter, type ChatView, type Edit, isObject, type JsonObject } from "./_chat.ts";
import { placedSlot, type SlottedBlock, slotBlocks, tierSlot } from "./_slots.ts";
import { isEarly, previousTarget, turnSizes } from "./_turn-sizes.ts";
import {
  editOf,
  inPromptOrder,
  keyOfId,
  planReplay,
  planWithoutReplay,
  type ReplayPlan,
  recordFor,
} from "./replay.ts";

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
  budget: number;
  framing?: string;
  log: boolean;
  /** Names for macros, a token budget, the reach (`--char`, `--user`, `--budget-tokens`, `--reach`). */
  recall?: Pick<RecallOptions, "names" | "budgetTokens" | "reach">;
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
}

/** What the pipeline needs from the outside world; each may throw, and a throw means "fail open". */
export interface PipelineDeps {
  /**
   * False while the vault is away (moved, deleted, not created yet): requests then pass through
   * unchanged, nothing is created on disk, and this has said so once on stderr, not per request.
   */
  ready(): boolean;
  /** How many turns, newest first, recall reads for a window of `window` (a card may ask for more). */
  reach(window: number): Promise<number>;
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
  warn(line: string): void;
  /** Style memory (learn/): hands it a user message, later; never waits, never throws. Absent: `--no-learn`. */
  observe?(message: SeenMessage): void;
}

/**
 * The conversation and turn a request was counted as, for the response's usage; no turn for a
 * request the gateway keeps nothing of (a conversation that never got a card).
 */
export interface Counted {
  conversation?: string;
  turn?: number;
}

export type Outcome =
  | ({ changed: false; reason: string } & Counted)
  | { changed: true; body: string; injected: string[]; conversation: string; turn: number };

export const CONVERSATION_HEADER = "x-lorecards-conversation";
/** Cards asked for by name on this request, comma-separated (manual cards come in only this way). */
export const WITH_HEADER = "x-lorecards-with";

export async function runPipeline(
  adapter: Adapter,
  body: unknown,
  headers: Headers,
  settings: InjectSettings,
  deps: PipelineDeps,
  /** A large body: let other requests run between phases (see _body.ts). */
  large = false,
): Promise<Outcome> {
  const view = adapter.read(body);
  if (view === null) throw new Error(`${adapter.name} body has a shape we do not recognise`);
  // Other requests get a turn here, before the new body is serialised, and while this request's commit
  // waits for the group commit it shares with them (state/_write-queue.ts). A request of the same
  // conversation that loads meanwhile reads the queued write (a store reads its own writes), and every
  // commit is an atomic merge where the first replay record wins (Store contract), so requests of one
  // conversation keep their order and their state whole.
  await letOthersRun(large);
  const markers = await deps.markers();
  const store = await deps.store();
  const found = await findConversation(view, headers, markers, store);
  const { conversation, opening } = found;
  const state = found.state ?? (await store.loadConversation(conversation));
  const replay = settings.replay !== false;
  const tiers = replay && settings.tiers !== false;
  const plan = replay
    ? planReplay(view, state.replays, settings.reinjectAfter ?? Number.POSITIVE_INFINITY)
    : planWithoutReplay(view, state, settings.reinjectAfter ?? DEFAULTS.reinjectAfter);
  const now = deps.now();
  if (plan.target === -1) return { changed: false, reason: "no user message", conversation };
  // Style memory hears each turn once: not a turn the store has seen (a retry, a regenerate, a tool
  // loop's next request); the learner remembers the turns of conversations the store does not keep.
  if (plan.turn > state.turn) {
    const message = { conversation, turn: plan.turn, hash: view.hash(plan.target), markers };
    deps.observe?.({ ...message, text: view.messages[plan.target]!.text });
  }

  let made: SlottedBlock[] = [];
  let result: RecallResult | null = null;
  let logged: Promise<void> = Promise.resolve();
  let recalled: RecallRecord | undefined;
  if (plan.repeat === null) {
    const reach = await deps.reach(settings.window);
    const index = settings.inject === "index" ? { session: conversation, query: newQueryId() } : undefined;
    result = await deps.recall(turnsOf(view, plan.target, markers, reach), {
      ...settings.recall,
      budget: settings.budget,
      scanDepth: settings.window,
      framing: settings.framing,
      inContext: plan.inContext,
      present: blocksInRequest(view, markers),
      candidates: false,
      seed: `${conversation}:${plan.turn}`,
      conversationId: conversation,
      ask: namesIn(headers.get(WITH_HEADER)),
      history: historyOf(view, plan.target, state.timed),
      markers,
      ...(tiers && { tiers: true, sent: plan.sent, stableSent: stableSent(plan) }),
      // The boot block: the guide (and the style brief, when asked for) opens the stable block,
      // made on the conversation's first turn.
      ...(tiers && !stableSent(plan) && { guide: await deps.guide?.(currentText(view, plan.target)) }),
      index,
    });
    recalled = recallRecordOf(result, "gateway", now);
    made = placeBlocks(result, view, plan, { ...settings, systemPlace: adapter.systemPlace });
    // Written alongside the commit (both wait for the same turn's flush), awaited after it.
    if (settings.log && made.length > 0) {
      const trigger = chosenCards(result)[0]?.trigger ?? "";
      logged = logSafely(deps, hitEntry("gateway", result, trigger, new Date(now)));
    }
  }
  const records = made.map((b) => recordFor(view, plan.turn, b));
  const added = records.map(editOf);
  // A conversation never seen that gets nothing has nothing to remember: its turn clock alone would
  // change no later decision, yet the commit is most of a request's CPU and the row would take one of
  // the 500 slots from a conversation that has cards in context.
  // Timed effects are remembered too, once there is something to remember or to forget.
  const timed = result?.timed;
  const remembers = timed !== undefined && (hasEntries(timed) || hasEntries(state.timed));
  const kept = records.length > 0 || state.turn !== 0 || remembers;
  if (kept) {
    const injections = made.flatMap((b) => b.cards.map((c) => ({ ...c, turn: plan.turn })));
    const [first, ...rest] = records;
    const change = { turn: plan.turn, now };
    // One commit per record (the store keeps the first record of each slot); they share a flush.
    await Promise.all([
      store.commitTurn(conversation, {
        ...change,
        ...(injections.length > 0 && { injections }),
        replay: first,
        opening,
        timed,
      }),
      ...rest.map((replay) => store.commitTurn(conversation, { ...change, replay })),
      recalled &&
        store
          .recordRecall(recalled)
          .catch((err) => deps.warn(`lorecards gateway: recall not recorded (${err})`)),
      plan.repeat === null &&
        recordSafely(
          deps,
          store,
          turnRecordOf(adapter, body, view, plan, made, added, result, conversation, now),
        ),
    ]);
  }
  await logged;

  const edits: Edit[] = [...plan.replayed, ...records].sort(inPromptOrder).map(editOf);
  // Usage is kept for the turns of a conversation that is kept: one that never got a card costs the
  // same with or without the gateway, and would take a slot and a write per request for nothing.
  if (edits.length === 0)
    return { changed: false, reason: "nothing to inject", conversation, ...(kept && { turn: plan.turn }) };
  const current = made.length > 0 ? made : (plan.repeat ?? []);
  await letOthersRun(large); // serialising a large body is a phase of its own
  let next = withCacheKey(adapter, adapter.apply(body as JsonObject, edits), conversation);
  if (tiers && adapter.name === "anthropic") next = withBreakpoints(next, plan, made);
  return {
    changed: true,
    body: JSON.stringify(next),
    injected: current.flatMap((b) => b.cards.map((c) => keyOfId(c.id))),
    conversation,
    turn: plan.turn,
  };
}

/**
 * Whether always-on cards go with the newest message rather than into a stable block: once the block
 * is in place (its bytes never change), and on any turn after the first, where a new block at the
 * start of the first message would move what the provider already has (a conversation the gateway
 * meets part way, or whose always-on cards the budget left out on its first turn).
 */
function stableSent(plan: ReplayPlan): boolean {
  return plan.stable !== null || plan.turn > 1;
}

/** The turn's blocks in their slots (_slots.ts): without tiers, the one block where `--inject` says. */
function placeBlocks(
  result: RecallResult,
  view: ChatView,
  plan: ReplayPlan,
  choice: Pick<InjectSettings, "inject"> & { systemPlace: Edit["place"] },
): SlottedBlock[] {
  const chosen = new Map<string, Chosen>(chosenCards(result).map((c) => [c.id, c]));
  // An index goes where `user` puts cards.
  const slots = {
    inject: choice.inject === "system" ? ("system" as const) : ("user" as const),
    systemPlace: choice.systemPlace,
    target: plan.target,
  };
  return slotBlocks(
    result.blocks,
    (b) =>
      b.tier === "placed" && b.at
        ? placedSlot(b.at, view, plan.target)
        : tierSlot(b.tier === "stable" ? "stable" : "volatile", view, slots),
    (id) => {
      const card = chosen.get(id);
      // What the conversation remembers it sent: the card's version (recall/version.ts).
      return { ref: { id, version: card?.version ?? "" }, edited: card?.edited === true };
    },
  );
}

/**
 * OpenAI routes requests that share a `prompt_cache_key` to the same cache: a request the gateway
 * writes gets its conversation's (hashed: a client's session id is not passed on) unless the client
 * set one. A request the gateway passes untouched stays byte-identical.
 */
/**
 * Anthropic: cache breakpoints after the stable block and on the newest replayed block
 * (_cache-steward.ts), for a client that caches (one that sets breakpoints of its own). A client that
 * sets none has not chosen caching, whose writes cost more than plain input: its billing is its call.
 */
function withBreakpoints(body: JsonObject, plan: ReplayPlan, made: readonly SlottedBlock[]): JsonObject {
  const stable = plan.stable?.text ?? made.find((b) => b.tier === "stable")?.text;
  const wanted = [stable, plan.lastReplayed?.text].filter((t): t is string => t !== undefined);
  return wanted.length === 0 ? body : stewardBreakpoints(body, wanted, { onlyIfClientCaches: true });
}

function withCacheKey(adapter: Adapter, body: JsonObject, conversation: string): JsonObject {
  if (!adapter.promptCacheKey || body.prompt_cache_key !== undefined) return body;
  return { ...body, prompt_cache_key: `lorecards-${sha256(conversation).slice(0, 32)}` };
}

/**
 * Headers by which clients name their own conversation, in order of preference after ours. Claude
 * Code's stays the same across `--continue` (its system prompt does not); Codex sends `thread-id` and
 * `session-id`, both the same across `codex exec resume`.
 */
const CLIENT_SESSION_HEADERS = [
  ["x-claude-code-session-id", "claude-code"],
  ["thread-id", "codex"],
  ["session-id", "codex"],
] as const;

/** A conversation id the client gave: ours, a client's session header, or a session id in the body. */
export function clientConversation(view: ChatView, headers: Headers): string | undefined {
  const given = headers.get(CONVERSATION_HEADER)?.trim();
  if (given) return given.slice(0, 200);
  for (const [name, client] of CLIENT_SESSION_HEADERS) {
    const id = headers.get(name)?.trim();
    if (id) return `${client}:${id.slice(0, 200)}`;
  }
  return view.session?.slice(0, 240);
}

/**
 * The conversation a request belongs to. Without an id from the client, the fingerprint of the
 * README's "Conversations, dedupe and replay": sha256(system prompt + first user message)[:16]. Some
 * clients change their system prompt part way (Claude Code between `-p` and `-p --continue`): a
 * request that already has earlier turns but an unknown fingerprint continues the latest conversation
 * that opened the same way.
 */
export async function findConversation(
  view: ChatView,
  headers: Headers,
  markers: Markers,
  store: Pick<Store, "findByOpening" | "loadConversation">,
): Promise<{ conversation: string; opening?: string; state?: Conversation }> {
  const given = clientConversation(view, headers);
  if (given) return { conversation: given };
  const firstUser = view.messages.findIndex((m) => m.role === "user");
  const first = firstUser === -1 ? "" : view.messages[firstUser]!.text;
  const conversation = sha256(stripBlocks(view.system, markers) + stripBlocks(first, markers)).slice(0, 16);
  const opening = sha256(
    view.messages
      .slice(0, firstUser + 1)
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => `${m.role}\n${stripBlocks(m.text, markers)}`)
      .join("\n"),
  ).slice(0, 32);
  const continues = view.messages.slice(firstUser + 1).some((m) => m.role === "assistant");
  if (!continues) return { conversation, opening };
  // Loaded here to see whether the fingerprint is known; handed back so the caller need not load it again.
  const state = await store.loadConversation(conversation);
  if (state.turn === 0) {
    const earlier = await store.findByOpening(opening);
    if (earlier !== null) return { conversation: earlier, opening };
  }
  return { conversation, opening, state };
}

function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/**
 * What the model reads of the last `reach` turns up to the target, with our own blocks stripped so
 * they never re-trigger and user messages reduced to what the person typed. Messages with no text
 * left (an assistant turn that only calls tools, a wrapped reminder) are not turns: they would push
 * the person's words out of the window. The target itself always counts, as the current message.
 * Walking back from the target and stopping at `reach` keeps the work to the scan window, however
 * long the history: a message recall would never read is never cleaned.
 */
function turnsOf(view: ChatView, target: number, markers: Markers, reach: number): Turn[] {
  const turns: Turn[] = [];
  for (let i = target; i >= 0 && turns.length < reach; i--) {
    const m = view.messages[i]!;
    if (m.role !== "user" && m.role !== "assistant") continue;
    const stripped = stripBlocks(m.text, markers);
    const text = m.role === "user" ? typedText(stripped) : stripped.trim();
    if (text !== "" || i === target) turns.push({ role: m.role, text });
  }
  return turns.reverse();
}

/**
 * The conversation as timed effects count it, up to the target (the message being answered): its
 * user and assistant messages, and the stored memory (what it holds from this message on, after a
 * client went back to an earlier turn, recall ignores: recall/stages/timed.ts).
 */
function historyOf(
  view: ChatView,
  target: number,
  memory: ConversationHistory["memory"],
): ConversationHistory {
  let messages = 0;
  let assistantMessages = 0;
  for (const m of view.messages.slice(0, target + 1)) {
    if (m.role === "user") messages++;
    else if (m.role === "assistant") {
      messages++;
      assistantMessages++;
    }
  }
  return { messages, assistantMessages, memory };
}

/** The newest user message's own words, as the style brief's context. */
function currentText(view: ChatView, target: number): string {
  return typedText(view.messages[target]?.text ?? "");
}

function hasEntries(memory: object): boolean {
  for (const _ in memory) return true;
  return false;
}

/** Blocks of ours the client sent (the hook's, in a Claude Code session that also uses the gateway). */
function blocksInRequest(view: ChatView, markers: Markers): string[] {
  const texts = [view.system, ...view.messages.map((m) => m.text)];
  return texts.flatMap((t) => (t.includes(markers.open) ? findBlocks(t, markers) : []));
}

/** What this turn did, for the door and the stats (README "What it costs"). */
function turnRecordOf(
  adapter: Adapter,
  body: unknown,
  view: ChatView,
  plan: ReplayPlan,
  made: readonly SlottedBlock[],
  added: readonly Edit[],
  result: RecallResult | null,
  conversation: string,
  now: number,
): TurnRecord {
  const previous = previousTarget(view, plan.target);
  const model = isObject(body) && typeof body.model === "string" ? body.model.slice(0, 200) : undefined;
  return {
    conversation,
    turn: plan.turn,
    at: now,
    surface: "gateway",
    api: adapter.name,
    ...(model && { model }),
    blocks: made.map((b, i) => ({
      tier: b.tier,
      where: b.slot.where,
      text: b.text,
      cards: b.cards.map((c) => c.id),
      ...(b.edited.length > 0 && { edited: b.edited }),
      ...(isEarly(added[i]!, previous) && { early: true }),
    })),
    replayedChars: plan.edits.reduce((n, e) => n + e.text.length, 0),
    leftOut: (result ? leftOutCards(result) : []).map((c) => ({ id: c.id, reason: c.reason })),
    ...turnSizes({ view, target: plan.target, replayed: plan.edits, added }),
  };
}

/** The turn record is for people; failing to keep it must never cost the request its cards. */
async function recordSafely(deps: PipelineDeps, store: Store, record: TurnRecord): Promise<void> {
  try {
    await store.recordTurn(record);
  } catch (err) {
    deps.warn(`lorecards gateway: turn not recorded (${err instanceof Error ? err.message : String(err)})`);
  }
}

async function logSafely(deps: PipelineDeps, entry: HitEntry): Promise<void> {
  try {
    await deps.logHits([entry]);
  } catch (err) {
    // The hit log is a convenience; losing a line must never cost the injection.
    deps.warn(`lorecards gateway: hit log not written (${err instanceof Error ? err.message : String(err)})`);
  }
}
