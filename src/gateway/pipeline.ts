/**
 * One chat request, start to end: read the body through its adapter, find the conversation and its
 * replay records, re-insert what still applies, ask recall for new cards (with the ones in context set
 * aside, and the conversation's timed-effects memory), place them, and record what was done. Anything
 * that throws here is caught by the handler, which then forwards the request unchanged (fail open).
 */

import type { Markers } from "../inject/index.ts";
import { findBlocks, stripBlocks, wrapBlock } from "../inject/index.ts";
import { hitEntry } from "../recall/hit-entry.ts";
import { namesIn } from "../recall/pipeline.ts";
import { typedText } from "../recall/typed-text.ts";
import type { ConversationHistory, RecallOptions, RecallResult, Turn } from "../recall/types.ts";
import type { Conversation, HitEntry, ReplayRecord, Store } from "../state/index.ts";
import { letOthersRun } from "./_body.ts";
import type { Adapter, ChatView, Edit, JsonObject } from "./_chat.ts";
import { keyOfId, planReplay, planWithoutReplay, recordFor } from "./replay.ts";

export interface InjectSettings {
  inject: "user" | "system";
  /** Turns of history scanned (recall's scanDepth). */
  window: number;
  reinjectAfter: number;
  budget: number;
  framing?: string;
  log: boolean;
  /** Names for macros, a token budget, the reach (`--char`, `--user`, `--budget-tokens`, `--reach`). */
  recall?: Pick<RecallOptions, "names" | "budgetTokens" | "reach">;
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
  now(): number;
  warn(line: string): void;
}

export type Outcome =
  | { changed: false; reason: string }
  | { changed: true; body: string; injected: string[]; conversation: string };

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
  const plan =
    settings.replay === false
      ? planWithoutReplay(view, state, settings.reinjectAfter)
      : planReplay(view, state.replays, settings.reinjectAfter);
  const now = deps.now();
  if (plan.target === -1) return { changed: false, reason: "no user message" };

  let record: ReplayRecord | null = null;
  let result: RecallResult | null = null;
  let logged: Promise<void> = Promise.resolve();
  if (plan.repeat === null) {
    const reach = await deps.reach(settings.window);
    result = await deps.recall(turnsOf(view, plan.target, markers, reach), {
      ...settings.recall,
      budget: settings.budget,
      scanDepth: settings.window,
      framing: settings.framing,
      inContext: plan.inContext,
      present: blocksInRequest(view, markers),
      candidates: false,
      seed: `${conversation}:${plan.turn}`,
      ask: namesIn(headers.get(WITH_HEADER)),
      history: historyOf(view, plan.target, state.timed),
    });
    if (result.context !== "") {
      const place = settings.inject === "user" ? "prefix" : adapter.systemPlace;
      const cards = result.chosen.map((c) => ({ id: c.id, version: c.version }));
      record = recordFor(view, plan, place, wrapBlock(result.context, markers), cards);
      // Written alongside the commit (both wait for the same turn's flush), awaited after it.
      if (settings.log) {
        logged = logSafely(deps, hitEntry("gateway", result, result.chosen[0]?.trigger ?? "", new Date(now)));
      }
    }
  }
  // A conversation never seen that gets nothing has nothing to remember: its turn clock alone would
  // change no later decision, yet the commit is most of a request's CPU and the row would take one of
  // the 500 slots from a conversation that has cards in context.
  // Timed effects are remembered too, once there is something to remember or to forget.
  const timed = result?.timed;
  const remembers = timed !== undefined && (hasEntries(timed) || hasEntries(state.timed));
  if (record !== null || state.turn !== 0 || remembers) {
    await store.commitTurn(conversation, {
      turn: plan.turn,
      now,
      injections: record?.cards.map((c) => ({ ...c, turn: plan.turn })),
      replay: record ?? undefined,
      opening,
      timed,
    });
  }
  await logged;

  const edits: Edit[] = [...plan.edits];
  if (record) edits.push({ anchor: record.anchor, place: record.place, text: record.text });
  if (edits.length === 0) return { changed: false, reason: "nothing to inject" };
  const current = record ?? plan.repeat;
  await letOthersRun(large); // serialising a large body is a phase of its own
  return {
    changed: true,
    body: JSON.stringify(withCacheKey(adapter, adapter.apply(body as JsonObject, edits), conversation)),
    injected: current ? current.cards.map((c) => keyOfId(c.id)) : [],
    conversation,
  };
}

/**
 * OpenAI routes requests that share a `prompt_cache_key` to the same cache: a request the gateway
 * writes gets its conversation's (hashed: a client's session id is not passed on) unless the client
 * set one. A request the gateway passes untouched stays byte-identical.
 */
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
 * client went back to an earlier turn, recall ignores: recall/timed.ts).
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

function hasEntries(memory: object): boolean {
  for (const _ in memory) return true;
  return false;
}

/** Blocks of ours the client sent (the hook's, in a Claude Code session that also uses the gateway). */
function blocksInRequest(view: ChatView, markers: Markers): string[] {
  const texts = [view.system, ...view.messages.map((m) => m.text)];
  return texts.flatMap((t) => (t.includes(markers.open) ? findBlocks(t, markers) : []));
}

async function logSafely(deps: PipelineDeps, entry: HitEntry): Promise<void> {
  try {
    await deps.logHits([entry]);
  } catch (err) {
    // The hit log is a convenience; losing a line must never cost the injection.
    deps.warn(`lorecards gateway: hit log not written (${err instanceof Error ? err.message : String(err)})`);
  }
}
