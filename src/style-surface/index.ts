/**
 * style-surface/ is style memory (style/) as the surfaces use it: what the gateway and the hook hand to
 * it, and the brief they send from it (brief.ts). This file owns when a surface hands a message to
 * style memory (README "Style memory"): the
 * switch (`--no-learn`, `learn: false` in settings.yaml), what is handed over (only what the person
 * typed: our own blocks stripped by their markers, the client's wrappers by recall/typed-text.ts; never
 * an assistant message or a tool result, which the callers never pass), and how often (once per turn:
 * a retry, a regenerate or the next request of a tool loop repeats a turn the gateway has seen). It
 * never delays or fails its caller: the gateway's observation runs after the current task, every
 * failure is one line through `warn`, and the style book is loaded only when something is learned.
 */

import { describeError } from "../errors.ts";
import { type Markers, stripBlocks } from "../inject/index.ts";
import { typedText } from "../recall/typed-text.ts";
import type { StyleBook, StyleOptions } from "../style/index.ts";
import { SettingsFile } from "../vault/index.ts";
import { isVaultFolder } from "../vault/root.ts";

export interface LearnOptions {
  vaultRoot: string;
  /** The style book's options (its clock: `$LORECARDS_STYLE_NOW`, read by cli/). */
  style?: StyleOptions;
  warn: (line: string) => void;
  /** How the warning names its surface: "lorecards gateway", "lorecards hook". */
  who: string;
}

/** One user message as a surface met it: the raw text of the message, before anything was stripped. */
export interface SeenMessage {
  conversation: string;
  /**
   * The turn it is (the number of user messages up to it), and a hash of it as the client sent it, or
   * how to make one: the gateway's is made when the message's moment is learned, not on the request.
   */
  turn: number;
  hash: string | (() => string);
  text: string;
  markers?: Markers;
}

/**
 * The person's own words in a user message, or "" when there are none: our blocks out (a block the
 * hook added and the client kept), then the client's wrappers and bookkeeping.
 */
export function ownWords(text: string, markers?: Markers): string {
  return typedText(markers ? stripBlocks(text, markers) : text);
}

/**
 * The conversation as style memory counts it. Claude Code names one session `hook:<id>` in the hook
 * and `claude-code:<id>` in the gateway; one id for both keeps a session that runs through both from
 * counting as two conversations (the activation gate wants two different ones).
 */
export function styleConversation(id: string): string {
  for (const prefix of ["hook:", "claude-code:"]) if (id.startsWith(prefix)) return id.slice(prefix.length);
  return id;
}

/** Whether settings.yaml lets the vault learn (`learn: false` turns it off; anything else leaves it on). */
function learningAllowed(settings: SettingsFile): boolean {
  return settings.current().learn !== false;
}

const SEEN_CONVERSATIONS = 1000;
const SEEN_TURNS = 64;
/** How long the messages handed over wait to be learned together (one transaction of style.db). */
const LEARN_EVERY_MS = 100;
/** The most messages learned in one go (each costs tens of microseconds on the serving thread). */
const LEARN_AT_MOST = 64;

export interface Learner {
  /** Observe `message` once, later: returns at once and never throws. */
  observe(message: SeenMessage): void;
  /**
   * Waits for what was handed over, then lets go of the style book (the gateway stops); with
   * `discard`, what waits to be learned is let go first (the vault moved away, which was said).
   */
  release(discard?: boolean): Promise<void>;
}

/**
 * The gateway's learner: one style book kept open, settings.yaml re-read at most once a second, and
 * the turns it has seen of the latest conversations (each turn by number and message hash), so a
 * request that repeats a turn is not learned from twice.
 */
export function gatewayLearner(options: LearnOptions): Learner {
  // The engine says what is wrong with settings.yaml; this copy only reads `learn`.
  const settings = new SettingsFile(options.vaultRoot, () => {}, 1000);
  const seen = new Map<string, Set<string>>();
  let book: Promise<StyleBook> | undefined;
  let failing = false;
  const pending = new Set<Promise<void>>();

  const opened = (): Promise<StyleBook> => {
    if (!book) {
      const opening = openBook(options);
      book = opening;
      opening.catch(() => {
        if (book === opening) book = undefined;
      });
    }
    return book;
  };

  const firstTime = (m: SeenMessage): boolean => {
    const key = `${m.turn}:${typeof m.hash === "string" ? m.hash : m.hash()}`;
    const turns = seen.get(m.conversation);
    if (turns?.has(key)) return false;
    const next = turns ?? new Set<string>();
    if (next.size >= SEEN_TURNS) next.delete(next.values().next().value as string);
    next.add(key);
    // Newest conversations last, so the oldest is the first to go.
    seen.delete(m.conversation);
    seen.set(m.conversation, next);
    if (seen.size > SEEN_CONVERSATIONS) seen.delete(seen.keys().next().value as string);
    return true;
  };

  const learn = async (handed: SeenMessage[]): Promise<void> => {
    try {
      // Told apart from what was heard before here, in the moment's batch, in the order they came.
      const batch = handed.filter(firstTime);
      if (!learningAllowed(settings)) return;
      const messages = batch
        .map((m) => ({ conversation: styleConversation(m.conversation), text: ownWords(m.text, m.markers) }))
        .filter((m) => m.text !== "");
      if (messages.length === 0) return;
      await (await opened()).observeAll(messages);
      failing = false;
    } catch (err) {
      // Said once until it works again: a broken style.db must not print a line per request.
      if (!failing) options.warn(`${options.who}: style not learned (${describeError(err)})`);
      failing = true;
    }
  };

  // The messages of a moment are learned together, in one write of style.db: beginning and committing
  // the transaction is most of what a write costs, and nothing reads what was learned within a moment.
  let queue: SeenMessage[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const learnQueued = (): void => {
    timer = undefined;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    const done: Promise<void> = learn(batch).finally(() => pending.delete(done));
    pending.add(done);
  };
  return {
    observe(message) {
      queue.push(message);
      // A full batch goes at once: a larger one would hold up the requests behind it.
      if (queue.length >= LEARN_AT_MOST && timer !== undefined) clearTimeout(timer);
      else if (timer !== undefined) return;
      // After the request has gone on to the upstream, and with whatever else arrives meanwhile.
      timer = setTimeout(learnQueued, queue.length >= LEARN_AT_MOST ? 0 : LEARN_EVERY_MS);
      timer.unref?.();
    },
    async release(discard = false) {
      if (timer !== undefined) clearTimeout(timer);
      // What is let go of was heard all the same: sent again, it is not learned then either.
      if (discard) {
        for (const m of queue) firstTime(m);
        queue = [];
      }
      learnQueued();
      await Promise.all(pending);
      const closing = book;
      book = undefined;
      await closing?.then((b) => b.close()).catch(() => undefined);
    },
  };
}

/**
 * The hook's: one prompt, one process. Claude Code sends each prompt once (a tool loop sends none), so
 * there is nothing to dedupe. The prompt is read now and what it shows goes to style memory's inbox,
 * which every use of style memory learns first (style/note.ts): no SQLite on the prompt's path.
 */
export async function learnOnce(options: LearnOptions, conversation: string, text: string): Promise<void> {
  try {
    if (!learningAllowed(new SettingsFile(options.vaultRoot, () => {}))) return;
    if (text === "") return;
    if (!isVaultFolder(options.vaultRoot)) throw new Error(`no vault at ${options.vaultRoot}`);
    const { noteStyle } = await import("../style/index.ts");
    await noteStyle(
      options.vaultRoot,
      { warn: options.warn, ...options.style },
      styleConversation(conversation),
      text,
    );
  } catch (err) {
    options.warn(`${options.who}: style not learned (${describeError(err)})`);
  }
}

/**
 * The style book, loaded on first use: a surface that never learns never loads its dictionary. A vault
 * folder that is not there (moved away since the request) is never made by learning.
 */
async function openBook(options: LearnOptions): Promise<StyleBook> {
  if (!isVaultFolder(options.vaultRoot)) throw new Error(`no vault at ${options.vaultRoot}`);
  const { openStyle } = await import("../style/index.ts");
  return openStyle(options.vaultRoot, { warn: options.warn, ...options.style });
}
