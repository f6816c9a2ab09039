/**
 * The gateway's question to recall for one turn (phase 4 of pipeline.ts): the turns the model reads,
 * cleaned of our own blocks and of what clients wrap around the person's words; the conversation's
 * clock and timed memory; the cards in context (replay's plan) or in a block of ours in the request;
 * the cards asked for by header and the lore switch in force (the request's `X-Lorecards-Lore`, else
 * the one an agent set for the conversation's session); and, on a conversation's first turn, what
 * opens its stable block.
 */
import { LORE_SWITCHES, type LoreSwitch } from "../defaults.ts";
import type { Markers } from "../inject/index.ts";
import { findBlocks, stripBlocks } from "../inject/index.ts";
import {
  type BookAsk,
  bookNamesIn,
  type ConversationHistory,
  type EarlierAsk,
  earlierIn,
  namesIn,
  newQueryId,
  type RecallResult,
  type Turn,
  tierHintsIn,
  typedText,
} from "../recall/index.ts";
import type { Conversation } from "../state/index.ts";
import type { ChatView } from "./_chat.ts";
import type { ReplayPlan } from "./replay.ts";
import type { InjectSettings, PipelineDeps } from "./types.ts";

/** Cards asked for by name on this request, comma-separated (manual cards come in only this way). */
export const WITH_HEADER = "x-lorecards-with";
/**
 * The lore switch for this request (the writing app's `auto_lore()` / `no_lore()`): `auto`,
 * `declared` (always-on cards and cards asked for only) or `none` (the request goes as it came).
 */
export const LORE_HEADER = "x-lorecards-lore";
/** Which block cards ask to start in, `Name=stable, Other=volatile` (over the cards' own `tier:`). */
export const TIER_HEADER = "x-lorecards-tier";
/** Cards as they were at an earlier version, beside them as they are: `Name@12, Other@2026-06-01`. */
export const EARLIER_HEADER = "x-lorecards-earlier";
/**
 * The conversation's books, `eldoria+seraphina` (or comma-separated; docs/BOOKS.md): exactly these. A
 * base URL `/books/eldoria+seraphina/v1` says the same for a client that cannot add a header. Without
 * either, the vault's own cards, its unbound books and those of the character the system prompt names.
 */
export const BOOKS_HEADER = "x-lorecards-books";

export interface TurnQuestion {
  view: ChatView;
  headers: Headers;
  plan: ReplayPlan;
  state: Conversation;
  conversation: string;
  markers: Markers;
  /** Stable and volatile tiers are on (replay and tiers). */
  tiers: boolean;
}

export async function recallTurn(
  q: TurnQuestion,
  settings: InjectSettings,
  deps: Pick<PipelineDeps, "reach" | "recall" | "guide" | "warn">,
): Promise<RecallResult> {
  // The request's header, else the switch an agent set for the session (MCP set_lore), else the flag's.
  const lore = loreAsked(q.headers, deps) ?? q.state.lore;
  const { view, plan, markers, conversation, tiers } = q;
  const books = booksAsked(q.headers, view, markers, settings.recall?.books);
  const reach = await deps.reach(settings.window, books);
  const opensStable = tiers && !stableSent(plan);
  const present = blocksInRequest(view, markers);
  return deps.recall(turnsOf(view, plan.target, markers, reach), {
    ...settings.recall,
    budget: settings.budget,
    scanDepth: settings.window,
    framing: settings.framing,
    inContext: plan.inContext,
    present,
    quotedIn: requestTexts(view, markers),
    candidates: false,
    seed: `${conversation}:${plan.turn}`,
    conversationId: conversation,
    books,
    ask: namesIn(q.headers.get(WITH_HEADER)),
    ...(lore && { lore }),
    ...(tiers && { tierHints: tierHintsAsked(q.headers, deps) }),
    earlier: earlierAsked(q.headers, deps),
    warn: deps.warn,
    history: historyOf(view, plan.target, q.state.timed),
    markers,
    ...(tiers && { tiers: true, sent: plan.sent, stableSent: !opensStable }),
    // The boot block: the guide (and the style brief, when asked for) opens the stable block, made on
    // the conversation's first turn.
    ...(opensStable && { guide: unsent(await deps.guide?.(currentText(view, plan.target)), present) }),
    ...(settings.inject === "index" && { index: { session: conversation, query: newQueryId() } }),
  });
}

/**
 * The books asked for: the header (or the base URL's prefix), else the gateway's `--book`; else the
 * system prompt, which names the conversation's character (or `--char` does).
 */
function booksAsked(headers: Headers, view: ChatView, markers: Markers, flags: BookAsk | undefined): BookAsk {
  const named = bookNamesIn(headers.get(BOOKS_HEADER));
  if (named.length > 0) return { named };
  if (flags?.named?.length) return flags;
  const system = view.system.includes(markers.open) ? stripBlocks(view.system, markers) : view.system;
  return { system, ...(flags?.character !== undefined && { character: flags.character }) };
}

/** The header's earlier cards; a line that does not read is said and passed over whole. */
function earlierAsked(headers: Headers, deps: Pick<PipelineDeps, "warn">): EarlierAsk[] {
  try {
    return earlierIn(headers.get(EARLIER_HEADER), "invalid_input");
  } catch (err) {
    deps.warn(`lorecards gateway: ${EARLIER_HEADER}: ${(err as Error).message}; passed over`);
    return [];
  }
}

/** The header's tier hints; a part that is no hint is said and passed over. */
function tierHintsAsked(headers: Headers, deps: Pick<PipelineDeps, "warn">) {
  const { hints, bad } = tierHintsIn(headers.get(TIER_HEADER));
  if (bad.length > 0)
    deps.warn(
      `lorecards gateway: ${TIER_HEADER} "${bad[0]!.slice(0, 60)}" is not Name=stable or Name=volatile; passed over`,
    );
  return hints;
}

/**
 * The switch a request asks for in its header, or undefined (then the gateway's `--lore`, else
 * settings.yaml, else `auto`); a value that is none of the three is said and ignored.
 */
export function loreAsked(headers: Headers, deps: Pick<PipelineDeps, "warn">): LoreSwitch | undefined {
  const raw = headers.get(LORE_HEADER)?.trim().toLowerCase();
  if (!raw) return undefined;
  if ((LORE_SWITCHES as readonly string[]).includes(raw)) return raw as LoreSwitch;
  deps.warn(
    `lorecards gateway: ${LORE_HEADER} "${raw.slice(0, 40)}" is not ${LORE_SWITCHES.join(", ")}; the gateway's own setting applies`,
  );
  return undefined;
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

/**
 * The guide, unless a block of ours the client sent already carries it (the hook's boot block, in a
 * Claude Code session that also goes through the gateway): the model reads it once.
 */
function unsent(guide: string | undefined, present: readonly string[]): string | undefined {
  const text = guide?.trim();
  return text && present.some((block) => block.includes(text)) ? undefined : guide;
}

/**
 * The request's own texts, our blocks taken out, where a card's text may already be (the same book
 * active in the client's World Info: recall sets such a card aside as `quoted`).
 */
function requestTexts(view: ChatView, markers: Markers): string[] {
  const texts = [view.system, ...view.messages.map((m) => m.text)];
  return texts.map((t) => (t.includes(markers.open) ? stripBlocks(t, markers) : t));
}

/** Blocks of ours the client sent (the hook's, in a Claude Code session that also uses the gateway). */
function blocksInRequest(view: ChatView, markers: Markers): string[] {
  const texts = [view.system, ...view.messages.map((m) => m.text)];
  return texts.flatMap((t) => (t.includes(markers.open) ? findBlocks(t, markers) : []));
}
