/**
 * Given turns replayed as a conversation (`try --turns`, `/api/try`'s `turns`, `explain`): recall runs
 * once per user message, oldest first, each seeing the messages up to it and the timed-effects memory
 * the one before left (sticky, cooldown, delay, the history decorators), and the last run is the
 * answer. The clock is the gateway's: `messages` counts the messages so far, the current one included,
 * and `assistantMessages` the assistant ones. With a seed, user message n draws with `seed:n`, as the
 * gateway does for conversation `seed` at turn n, so a conversation's draws can be replayed here.
 *
 * Each run is given only the turns a recall reads (`reach`, Engine.reach), as the gateway gives it,
 * never all the turns before it: a list of thousands of turns costs each run the same, so the replay
 * is linear in the number of turns, not quadratic. A long replay lets other requests of the process run
 * between its runs.
 */
import type { RecallOptions, RecallResult, Turn } from "./types.ts";

export type RecallAt = (turns: readonly Turn[], options: RecallOptions) => Promise<RecallResult>;

/** Runs between two turns of the event loop: a replay of many turns never holds up a server. */
const RUNS_PER_TURN = 16;

export async function simulate(
  recallAt: RecallAt,
  turns: readonly Turn[],
  options: RecallOptions = {},
  reach = Number.POSITIVE_INFINITY,
): Promise<RecallResult> {
  let memory = options.history?.memory ?? {};
  let assistantMessages = 0;
  let userTurn = 0;
  let result: RecallResult | undefined;
  // A conversation's id, when the caller names none, is its opening message (macros draw by it).
  const conversationId = options.conversationId ?? options.seed ?? turns[0]?.text;
  for (let i = 0; i < turns.length; i++) {
    const last = i === turns.length - 1;
    if (turns[i]!.role === "assistant") assistantMessages++;
    else userTurn++;
    if (turns[i]!.role !== "user" && !last) continue;
    if (userTurn % RUNS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const history = { messages: i + 1, assistantMessages, memory };
    const seed = options.seed === undefined ? undefined : `${options.seed}:${userTurn}`;
    const seen = turns.slice(Math.max(0, i + 1 - reach), i + 1);
    result = await recallAt(seen, {
      ...options,
      seed,
      ...(conversationId !== undefined && { conversationId }),
      history,
      // Earlier runs only carry the memory forward: they need no candidate words, and what the request
      // quotes is, for them, what they read (the last run gets what the caller gave).
      candidates: last ? options.candidates : false,
      ...(options.quotedIn && !last && { quotedIn: seen.map((t) => t.text) }),
    });
    memory = result.timed ?? {};
  }
  if (result === undefined) throw new Error("simulate needs at least one turn");
  return result;
}
