/**
 * One chat request, start to end: read the body through its adapter, find the conversation and its
 * replay records, re-insert what still applies, ask recall for new cards (with the ones in context set
 * aside), place them, and record what was done. Anything that throws here is caught by the handler,
 * which then forwards the request unchanged (fail open).
 */

import type { Markers } from "../inject/index.ts";
import { stripBlocks, wrapBlock } from "../inject/index.ts";
import type { RecallOptions, RecallResult, Turn } from "../recall/types.ts";
import type { HitEntry, ReplayRecord, Store } from "../state/index.ts";
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
  /**
   * Re-insert earlier blocks (default true). `false` is the plain per-turn injection of the original
   * tool, kept only so benchmarks can measure what replay buys; dedupe then uses the ledger alone.
   */
  replay?: boolean;
}

/** What the pipeline needs from the outside world; each may throw, and a throw means "fail open". */
export interface PipelineDeps {
  recall(turns: Turn[], opts: RecallOptions): Promise<RecallResult>;
  store(): Store;
  markers(): Markers;
  logHits(entries: HitEntry[]): void;
  now(): number;
  warn(line: string): void;
}

export type Outcome =
  | { changed: false; reason: string }
  | { changed: true; body: string; injected: string[]; conversation: string };

export const CONVERSATION_HEADER = "x-lorecards-conversation";

export async function runPipeline(
  adapter: Adapter,
  body: unknown,
  headers: Headers,
  settings: InjectSettings,
  deps: PipelineDeps,
): Promise<Outcome> {
  const view = adapter.read(body);
  if (view === null) throw new Error(`${adapter.name} body has a shape we do not recognise`);
  const markers = deps.markers();
  const conversation = conversationId(view, headers.get(CONVERSATION_HEADER), markers);
  const store = deps.store();
  const state = store.load(conversation);
  const plan =
    settings.replay === false
      ? planWithoutReplay(view, state, settings.reinjectAfter)
      : planReplay(view, state.replays, settings.reinjectAfter);
  const now = deps.now();
  if (plan.target === -1) return { changed: false, reason: "no user message" };

  let record: ReplayRecord | null = null;
  if (plan.repeat === null) {
    const result = await deps.recall(turnsOf(view, plan.target, markers), {
      budget: settings.budget,
      scanDepth: settings.window,
      framing: settings.framing,
      inContext: plan.inContext,
      candidates: false,
    });
    if (result.context !== "") {
      const place = settings.inject === "user" ? "prefix" : adapter.systemPlace;
      const cards = result.fired.filter((c) => c.inBudget).map((c) => ({ id: c.id, version: c.version }));
      record = recordFor(view, plan, place, wrapBlock(result.context, markers), cards);
      if (settings.log) logSafely(deps, hitEntry(result, now));
    }
  }
  // A conversation never seen that gets nothing has nothing to remember: its turn clock alone would
  // change no later decision, yet the commit is most of a request's CPU and the row would take one of
  // the 500 slots from a conversation that has cards in context.
  if (record !== null || state.turn !== 0) {
    store.commit(conversation, {
      turn: plan.turn,
      now,
      injections: record?.cards.map((c) => ({ ...c, turn: plan.turn })),
      replay: record ?? undefined,
    });
  }

  const edits: Edit[] = [...plan.edits];
  if (record) edits.push({ anchor: record.anchor, place: record.place, text: record.text });
  if (edits.length === 0) return { changed: false, reason: "nothing to inject" };
  const current = record ?? plan.repeat;
  return {
    changed: true,
    body: JSON.stringify(adapter.apply(body as JsonObject, edits)),
    injected: current ? current.cards.map((c) => keyOfId(c.id)) : [],
    conversation,
  };
}

/** The client's header, else sha256(system prompt + first user message)[:16] (spec: Dedupe). */
export function conversationId(view: ChatView, header: string | null, markers: Markers): string {
  const given = header?.trim();
  if (given) return given.slice(0, 200);
  const first = view.messages.find((m) => m.role === "user")?.text ?? "";
  const seed = stripBlocks(view.system, markers) + stripBlocks(first, markers);
  return new Bun.CryptoHasher("sha256").update(seed).digest("hex").slice(0, 16);
}

/** User and assistant text up to the target, with our own blocks stripped so they never re-trigger. */
function turnsOf(view: ChatView, target: number, markers: Markers): Turn[] {
  const turns: Turn[] = [];
  for (const m of view.messages.slice(0, target + 1)) {
    if (m.role === "user" || m.role === "assistant")
      turns.push({ role: m.role, text: stripBlocks(m.text, markers) });
  }
  return turns;
}

function hitEntry(result: RecallResult, now: number): HitEntry {
  const chosen = result.fired.filter((c) => c.inBudget);
  return {
    time: new Date(now).toISOString(),
    source: "gateway",
    keys: chosen.map((c) => c.key),
    words: [...new Set(chosen.flatMap((c) => c.hits))],
    message: chosen[0]?.trigger ?? "",
  };
}

function logSafely(deps: PipelineDeps, entry: HitEntry): void {
  try {
    deps.logHits([entry]);
  } catch (err) {
    // The hit log is a convenience; losing a line must never cost the injection.
    deps.warn(`lorecards gateway: hit log not written (${err instanceof Error ? err.message : String(err)})`);
  }
}
