/**
 * Given turns replayed as a conversation (`try --turns`, `/api/try`'s `turns`): recall runs once per
 * user message, oldest first, each seeing the messages up to it and the timed-effects memory the one
 * before left (sticky, cooldown, delay, the history decorators), and the last run is the answer. The
 * clock is the gateway's: `messages` counts the messages so far, the current one included, and
 * `assistantMessages` the assistant ones. With a seed, user message n draws with `seed:n`, as the
 * gateway does for conversation `seed` at turn n, so a conversation's draws can be replayed here.
 */
import type { RecallOptions, RecallResult, Turn } from "./types.ts";

export type RecallAt = (turns: readonly Turn[], options: RecallOptions) => Promise<RecallResult>;

export async function simulate(
  recallAt: RecallAt,
  turns: readonly Turn[],
  options: RecallOptions = {},
): Promise<RecallResult> {
  let memory = options.history?.memory ?? {};
  let assistantMessages = 0;
  let userTurn = 0;
  let result: RecallResult | undefined;
  for (let i = 0; i < turns.length; i++) {
    const last = i === turns.length - 1;
    if (turns[i]!.role === "assistant") assistantMessages++;
    else userTurn++;
    if (turns[i]!.role !== "user" && !last) continue;
    const history = { messages: i + 1, assistantMessages, memory };
    const seed = options.seed === undefined ? undefined : `${options.seed}:${userTurn}`;
    const conversationId = options.conversationId ?? options.seed;
    // Earlier runs only carry the memory forward: they need no candidate words.
    const candidates = last ? options.candidates : false;
    result = await recallAt(turns.slice(0, i + 1), {
      ...options,
      seed,
      ...(conversationId !== undefined && { conversationId }),
      history,
      candidates,
    });
    memory = result.timed ?? {};
  }
  if (result === undefined) throw new Error("simulate needs at least one turn");
  return result;
}
