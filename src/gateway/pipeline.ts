/**
 * One chat request, start to end, as named phases:
 *   1. read     the body through its protocol's adapter (a neutral view of the conversation)
 *   2. find     the conversation it belongs to and what is remembered of it (conversation.ts)
 *   3. plan     what of earlier turns is replayed, and which cards are still in context (replay.ts)
 *   4. recall   the cards for the newest user message (recall-turn.ts; not for a repeated turn)
 *   5. place    each block in its slot of the body (_slots.ts)
 *   6. record   the replay records, the ledger, the timed memory, and for people the turn record
 *               (turn-record.ts), an index recall and the hit log
 *   7. apply    replayed and new blocks into the body, and the protocol's cache hints
 * Anything that throws here is caught by the handler, which then forwards the request unchanged (fail
 * open); what is kept only for people is best effort and costs a line on stderr, never the cards.
 */

import { DEFAULTS, type LoreSwitch } from "../defaults.ts";
import { bestEffort } from "../errors.ts";
import type { Markers } from "../inject/index.ts";
import { chosenCards, hitEntry, type RecallResult, recallRecordOf } from "../recall/index.ts";
import type { Conversation, ReplayRecord, Store } from "../state/index.ts";
import { GUIDE_FILE } from "../vault/index.ts";
import { letOthersRun, YIELD_FROM_BYTES } from "./_body.ts";
import { stewardBreakpoints } from "./_cache-steward.ts";
import type { Adapter, ChatView, Edit, JsonObject } from "./_chat.ts";
import { STEPS_FROM_BYTES, serialiseInSteps } from "./_serialise.ts";
import { placeBlocks, type SlottedBlock } from "./_slots.ts";
import { cacheKeyOf, findConversation } from "./conversation.ts";
import type { ApiName } from "./protocols.ts";
import { watchSettled } from "./proxy.ts";
import { loreAsked, recallTurn } from "./recall-turn.ts";
import {
  editOf,
  inPromptOrder,
  keyOfId,
  planReplay,
  planWithoutReplay,
  type ReplayPlan,
  recordFor,
} from "./replay.ts";
import { type TurnInput, turnRecordOf } from "./turn-record.ts";
import type { InjectSettings, Outcome, PipelineDeps } from "./types.ts";

export type { InjectSettings, Outcome, PipelineDeps };

export async function runPipeline(
  adapter: Adapter<ApiName>,
  body: unknown,
  headers: Headers,
  settings: InjectSettings,
  deps: PipelineDeps,
  /** The body's size in bytes: a large one lets other requests run between phases (see _body.ts). */
  size = 0,
): Promise<Outcome> {
  const large = size >= YIELD_FROM_BYTES;
  // 1. read
  const view = adapter.read(body);
  if (view === null) throw new Error(`${adapter.name} body has a shape we do not recognise`);
  if (view.notice !== undefined) return { changed: false, reason: view.notice, notice: true };
  // Other requests get a turn here, before the new body is serialised, and while this request's commit
  // waits for the group commit it shares with them (state/_write-queue.ts). A request of the same
  // conversation that loads meanwhile reads the queued write (a store reads its own writes), and every
  // commit is an atomic merge where the first replay record wins (Store contract), so requests of one
  // conversation keep their order and their state whole.
  await letOthersRun(large);
  // 2. find
  const markers = await deps.markers();
  const store = await deps.store();
  const found = await findConversation(view, headers, markers, store);
  const { conversation } = found;
  const state = found.state ?? (await store.loadConversation(conversation));
  // 3. plan
  const plan = planFor(view, state, settings);
  const now = deps.now();
  if (plan.target === -1) return { changed: false, reason: "no user message", conversation };
  // Hashing a large message (to hear it) and matching it are phases of their own (_body.ts).
  await letOthersRun(large);
  hear(deps, view, plan, state, conversation, markers);
  await letOthersRun(large);
  // 4. recall and 5. place: a repeated turn (a retry, a tool loop's next request) only replays.
  const tiers = tiersOn(settings);
  const turn = { view, headers, plan, state, conversation, markers, tiers };
  const result = plan.repeat === null ? await recallTurn(turn, settings, deps) : null;
  const made = result
    ? placeBlocks(result, view, plan, { ...settings, systemPlace: adapter.systemPlace })
    : [];
  // 6. record
  const records = made.map((b) => recordFor(view, plan.turn, b));
  const done = {
    adapter,
    body,
    view,
    plan,
    conversation,
    made,
    records,
    result,
    now,
    opening: found.opening,
  };
  const { kept, durable } = record(done, state, store, settings, deps);
  const quoted = quotedIn(result);
  // 7. apply; the switch at `none`: nothing of ours at all, not even what earlier turns added.
  if (loreOf(result, headers, state, settings, deps) === "none")
    return {
      changed: false,
      reason: "lore: none",
      conversation,
      ...(kept && { turn: plan.turn }),
      ...quoted,
      durable,
    };
  const edits: Edit[] = [...plan.replayed, ...records].sort(inPromptOrder).map(editOf);
  // Usage is kept for the turns of a conversation that is kept: one that never got a card costs the
  // same with or without the gateway, and would take a slot and a write per request for nothing.
  if (edits.length === 0)
    return {
      changed: false,
      reason: "nothing to inject",
      conversation,
      ...(kept && { turn: plan.turn }),
      ...quoted,
      durable,
    };
  const current = made.length > 0 ? made : (plan.repeat ?? []);
  await letOthersRun(large); // serialising a large body is a phase of its own
  const next = withCacheHints(adapter, adapter.apply(body as JsonObject, edits), {
    conversation,
    plan,
    made,
    tiers,
    cacheKey: settings.promptCacheKey === true,
  });
  return {
    changed: true,
    // A body of megabytes is written in steps, others running between them (_serialise.ts).
    body:
      size >= STEPS_FROM_BYTES
        ? await serialiseInSteps(next, () => letOthersRun(true))
        : JSON.stringify(next),
    injected: namesOf(current),
    conversation,
    turn: plan.turn,
    ...quoted,
    durable,
  };
}

/** The cards recall set aside because the request already held their text, for a line on stderr. */
function quotedIn(result: RecallResult | null): { quoted?: string[] } {
  const names = (result?.selection ?? []).flatMap((e) =>
    e.verdict === "in_context" && e.reason === "quoted" ? [e.card.title] : [],
  );
  return names.length > 0 ? { quoted: names } : {};
}

/**
 * The lore switch in force: recall's answer says it (the header, else the session's switch, else
 * `--lore`, else settings.yaml); a repeated turn asks no recall, so the header, the session's switch
 * and the flag say it.
 */
function loreOf(
  result: RecallResult | null,
  headers: Headers,
  state: Conversation,
  settings: InjectSettings,
  deps: PipelineDeps,
): LoreSwitch {
  return result?.lore ?? loreAsked(headers, deps) ?? state.lore ?? settings.recall?.lore ?? "auto";
}

/** Replay and tiers are on unless a benchmark turns them off (tiers need replay). */
function tiersOn(settings: InjectSettings): boolean {
  return settings.replay !== false && settings.tiers !== false;
}

/** Phase 3: what of earlier turns goes back in, and which cards count as in context. */
function planFor(view: ChatView, state: Conversation, settings: InjectSettings): ReplayPlan {
  return settings.replay !== false
    ? planReplay(view, state.replays, settings.reinjectAfter ?? Number.POSITIVE_INFINITY)
    : planWithoutReplay(view, state, settings.reinjectAfter ?? DEFAULTS.reinjectAfter);
}

/**
 * Style memory hears each turn once: not a turn the store has seen (a retry, a regenerate, a tool
 * loop's next request); the learner remembers the turns of conversations the store does not keep.
 */
function hear(
  deps: PipelineDeps,
  view: ChatView,
  plan: ReplayPlan,
  state: Conversation,
  conversation: string,
  markers: Markers,
): void {
  if (plan.turn <= state.turn || deps.observe === undefined) return;
  // The message's hash (to hear each turn once) is made with the moment's batch, after the request.
  const target = plan.target;
  const text = view.messages[target]!.text;
  deps.observe({ conversation, turn: plan.turn, hash: () => view.hash(target), text, markers });
}

/** What phase 6 records: the turn as the turn record sees it, and its replay records. */
interface TurnDone extends Omit<TurnInput, "added"> {
  opening?: string;
  /** The replay records of the blocks made now (same order). */
  records: readonly ReplayRecord[];
}

/**
 * Phase 6: the turn's replay records, ledger and timed memory in one commit per record (they share a
 * group commit), and beside them what is kept for people (the turn record, an index recall, the hit
 * log). Nothing here waits for the disk: the request goes upstream at once, and `durable` settles
 * once all of it is committed (or failed, said on stderr), which the answer's end waits for, so the
 * next turn, which needs the answer, finds its state in the store whichever gateway it reaches.
 * `kept` says whether the conversation is kept at all.
 */
function record(
  done: TurnDone,
  state: Conversation,
  store: Store,
  settings: InjectSettings,
  deps: PipelineDeps,
): { kept: boolean; durable: Promise<void> | undefined } {
  const { plan, made, records, result, conversation, now } = done;
  const logged =
    settings.log && result && made.length > 0
      ? bestEffort(
          () =>
            deps.logHits([hitEntry("gateway", result, chosenCards(result)[0]?.trigger ?? "", new Date(now))]),
          deps.warn,
          "lorecards gateway: hit log not written",
        )
      : undefined;
  // A conversation never seen that gets nothing has nothing to remember: its turn clock alone would
  // change no later decision, yet the commit is most of a request's CPU and the row would take one of
  // the 500 slots from a conversation that has cards in context.
  // Timed effects are remembered too, once there is something to remember or to forget.
  const timed = result?.timed;
  const remembers = timed !== undefined && (hasEntries(timed) || hasEntries(state.timed));
  const kept = records.length > 0 || state.turn !== 0 || remembers;
  if (!kept) return { kept, durable: logged && watchSettled(logged) };
  const injections = made.flatMap((b) => b.cards.map((c) => ({ ...c, turn: plan.turn })));
  const [first, ...rest] = records;
  const change = { turn: plan.turn, now };
  const recalled = result && recallRecordOf(result, "gateway", now);
  const replayed = Promise.all([
    store.commitTurn(conversation, {
      ...change,
      ...(injections.length > 0 && { injections }),
      replay: first,
      opening: done.opening,
      timed,
    }),
    ...rest.map((replay) => store.commitTurn(conversation, { ...change, replay })),
  ]);
  const durable = watchSettled(
    Promise.all([
      bestEffort(
        () => replayed,
        deps.warn,
        `lorecards gateway: the state of ${conversation} turn ${plan.turn} was not saved; its next turn may miss what this one added`,
      ),
      recalled &&
        bestEffort(() => store.recordRecall(recalled), deps.warn, "lorecards gateway: recall not recorded"),
      plan.repeat === null &&
        bestEffort(
          () => store.recordTurn(turnRecordOf({ ...done, added: records.map(editOf) })),
          deps.warn,
          "lorecards gateway: turn not recorded",
        ),
      logged,
    ]).then(() => undefined),
  );
  return { kept, durable };
}

/**
 * Phase 7's protocol hints: a `prompt_cache_key` for a protocol that takes one, when the settings ask
 * for it (unless the client set its own), and cache breakpoints for one that caches only where asked.
 */
function withCacheHints(
  adapter: Adapter,
  body: JsonObject,
  turn: {
    conversation: string;
    plan: ReplayPlan;
    made: readonly SlottedBlock[];
    tiers: boolean;
    cacheKey: boolean;
  },
): JsonObject {
  let next = body;
  if (turn.cacheKey && adapter.promptCacheKey && next.prompt_cache_key === undefined)
    next = { ...next, prompt_cache_key: cacheKeyOf(turn.conversation) };
  if (adapter.cacheBreakpoints && turn.tiers) next = withBreakpoints(next, turn.plan, turn.made);
  return next;
}

/**
 * Cache breakpoints after the stable block and on the newest replayed block (_cache-steward.ts), for a
 * client that caches (one that sets breakpoints of its own). A client that sets none has not chosen
 * caching, whose writes cost more than plain input: its billing is its call.
 */
function withBreakpoints(body: JsonObject, plan: ReplayPlan, made: readonly SlottedBlock[]): JsonObject {
  const stable = plan.stable?.text ?? made.find((b) => b.tier === "stable")?.text;
  const wanted = [stable, plan.lastReplayed?.text].filter((t): t is string => t !== undefined);
  return wanted.length === 0 ? body : stewardBreakpoints(body, wanted, { onlyIfClientCaches: true });
}

/**
 * What `X-Lorecards-Injected` names: the cards of the turn's blocks, and `guide.md` for a stable block
 * that opens with the guide, so a body changed by the guide alone still says it was changed.
 */
function namesOf(
  blocks: readonly { tier?: string; text: string; cards: readonly { id: string }[] }[],
): string[] {
  const names = blocks.flatMap((b) => b.cards.map((c) => keyOfId(c.id)));
  const guided = blocks.some((b) => b.tier === "stable" && b.cards.length === 0);
  return guided ? [GUIDE_FILE, ...names] : names;
}

function hasEntries(memory: object): boolean {
  for (const _ in memory) return true;
  return false;
}
