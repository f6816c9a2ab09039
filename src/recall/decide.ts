/**
 * Which cards fire this turn, before anything is weighed by size: the first half of the pipeline, as
 * named phases over one selection. The order is SillyTavern's where it has one (world-info.js,
 * `checkWorldInfo`): the clock before the draws, inclusion groups before probability (a group's winner
 * can still miss its draw, leaving the group empty), and the recursive pass judged like the first.
 *   1. notice    the person's words (notice.ts)
 *   2. policy    always / manual / never, cards asked for by id, still-sticky cards (policy.ts)
 *   3. gate      the secondary words of cards that came in on their words (gate.ts)
 *   4. timed     delay, cooldown, the history decorators (timed.ts)
 *   5. hold      `delay_until_recursion` cards wait for the reach pass (reach.ts)
 *   6. groups    one card per inclusion group (groups.ts)
 *   7. chance    probability (chance.ts)
 *   8. reach     one hop through the fired cards' text, then 3–7 again for what it found (reach.ts)
 * Besides the verdicts it keeps what the context door (explain.ts) asks after: the secondary word that
 * stopped a card (_blocked.ts, only for cards already stopped) and the card whose text reached another.
 */
import { rulesOf } from "../card/rules.ts";
import type { MatchOptions } from "../match/index.ts";
import { withBlocks } from "./_blocked.ts";
import { chance, seedOf } from "./chance.ts";
import { gate } from "./gate.ts";
import { groups } from "./groups.ts";
import { notice } from "./notice.ts";
import type { Compiled } from "./pipeline.ts";
import { cardById, policy, unnamedCards } from "./policy.ts";
import { hold, reach } from "./reach.ts";
import { clockOf, stickyIds, timed } from "./timed.ts";
import type { ConversationHistory, RecallOptions, Selected, Selection, Turn } from "./types.ts";

export interface Decided {
  selection: Selected[];
  /** The conversation's clock and memory this turn was judged by. */
  clock: ConversationHistory;
}

export async function decide(
  compiled: Compiled,
  turns: readonly Turn[],
  match: MatchOptions,
  options: Pick<RecallOptions, "seed" | "reach" | "explicit" | "history">,
): Promise<Decided> {
  const clock = clockOf(turns, options.history);
  const seed = seedOf(turns, options.seed);
  const explicit = options.explicit ?? new Set<string>();
  const sticky = new Set(stickyIds(clock, (id) => cardById(compiled, id)));
  // Cards that win their groups and skip their draw: still sticky, or asked for by id.
  const keep = new Set([...sticky, ...explicit]);

  const noticed = await notice(compiled, messagesOf(turns), match);
  const entered = policy(noticed.selection, unnamedCards(compiled, explicit, [...sticky]), explicit);
  let selection = await withBlocks(await gate(entered, noticed.scan), noticed.scan);
  selection = hold(timed(selection, { clock, sticky }), sticky);
  selection = chance(groups(selection, { seed, keep }), { seed, keep });
  if (options.reach === "named") return { selection, clock };

  const reached = await reach(compiled, selection, { match, explicit });
  const batch = reached.batch;
  const taken = takenGroups(reached.selection, batch);
  selection = await withBlocks(reachedFrom(compiled, reached.selection, batch), noticed.scan);
  selection = timed(selection, { clock, sticky, batch });
  selection = chance(groups(selection, { seed, keep, batch, taken }), { seed, keep, batch });
  return { selection, clock };
}

function messagesOf(turns: readonly Turn[]): string[] {
  return turns.map((t) => t.text);
}

/** Groups a card of the first pass already fills, with that card: the reach pass adds no one to them. */
function takenGroups(selection: Selection, batch: ReadonlySet<string>): Map<string, string> {
  const taken = new Map<string, string>();
  for (const entry of selection) {
    if (entry.verdict !== "fired" || batch.has(entry.id)) continue;
    for (const name of rulesOf(entry.card).groups) if (!taken.has(name)) taken.set(name, entry.id);
  }
  return taken;
}

/**
 * Each reached entry with the id of the card whose text reached it: reach.ts keeps that text as the
 * trigger, so the source is the first-pass card whose public text it is (the source caches the texts).
 */
function reachedFrom(compiled: Compiled, selection: Selected[], batch: ReadonlySet<string>): Selected[] {
  const reached = selection.filter((e) => e.via === "reached" && batch.has(e.id));
  if (reached.length === 0) return selection;
  const sources = selection.filter((e) => e.via !== "reached" && e.verdict === "fired");
  const from = new Map<string, string>();
  for (const entry of reached) {
    const source = sources.find((s) => compiled.publicText(s.card) === entry.trigger);
    if (source) from.set(entry.id, source.id);
  }
  return selection.map((e) => {
    const id = from.get(e.id);
    return id === undefined ? e : { ...e, reachedFrom: id };
  });
}
