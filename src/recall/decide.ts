/**
 * Which cards fire this turn, before anything is weighed by size: the first half of the pipeline, as
 * named phases over one selection. The order is SillyTavern's where it has one (world-info.js,
 * `checkWorldInfo`): the clock before the draws, inclusion groups before probability (a group's winner
 * can still miss its draw, leaving the group empty), and the recursive pass judged like the first.
 *   1. notice    the person's words (stages/notice.ts)
 *   2. policy    always / manual / never, cards asked for by id, still-sticky cards (stages/policy.ts)
 *   3. gate      the secondary words of cards that came in on their words (stages/gate.ts)
 *   4. timed     delay, cooldown, the history decorators (stages/timed.ts)
 *   5. hold      `delay_until_recursion` cards wait for the reach pass (stages/reach.ts)
 *   6. groups    one card per inclusion group (stages/groups.ts)
 *   7. chance    probability (stages/chance.ts)
 *   8. reach     one hop through the fired cards' text, then 4, 6 and 7 again for what it found (the
 *                gate has judged it on the text that reached it: stages/reach.ts); with reach
 *                `named`, what it found is kept vetoed `reach_named`, for the door to show
 * Each veto carries the rule that stopped the card, as the stage that stopped it said; besides, this
 * keeps the card whose text reached another, for the context door (explain/).
 */
import { rulesOf } from "../card/rules.ts";
import type { MatchOptions } from "../match/index.ts";
import type { Compiled } from "./_compiled.ts";
import { isDeclared, type Selected, type Selection, vetoed } from "./selection.ts";
import { chance, seedOf } from "./stages/chance.ts";
import { gate } from "./stages/gate.ts";
import { groups } from "./stages/groups.ts";
import { notice } from "./stages/notice.ts";
import { cardById, policy, unnamedCards } from "./stages/policy.ts";
import { hold, proseOf, reach, reachShown } from "./stages/reach.ts";
import { clockOf, stickyIds, timed } from "./stages/timed.ts";
import type { ConversationHistory, RecallOptions, Turn } from "./types.ts";

export interface Decided {
  selection: Selected[];
  /** The conversation's clock and memory this turn was judged by. */
  clock: ConversationHistory;
}

export async function decide(
  compiled: Compiled,
  turns: readonly Turn[],
  match: MatchOptions,
  options: Pick<RecallOptions, "seed" | "reach" | "explicit" | "history" | "lore">,
): Promise<Decided> {
  const clock = clockOf(turns, options.history);
  const seed = seedOf(turns, options.seed);
  const explicit = options.explicit ?? new Set<string>();
  const declaredOnly = options.lore === "declared";
  // Declared only: nothing noticed comes in, so nothing noticed earlier stays in either.
  const sticky = new Set(declaredOnly ? [] : stickyIds(clock, (id) => cardById(compiled, id)));
  // Cards that win their groups and skip their draw: still sticky, or asked for by id.
  const keep = new Set([...sticky, ...explicit]);

  const noticed = await notice(compiled, messagesOf(turns), match);
  let entered = policy(noticed.selection, unnamedCards(compiled, explicit, [...sticky]), explicit);
  if (declaredOnly) entered = entered.map(declaredOr);
  // Nothing came in (no card's words in the window, none always on, asked for or still sticky): the
  // stages after this judge, hold back or follow what came in, so none of them can make a card fire.
  if (entered.length === 0) return { selection: entered, clock };
  let selection = await gate(entered, noticed.scan);
  selection = hold(timed(selection, { clock, sticky }), sticky);
  selection = chance(groups(selection, { seed, keep }), { seed, keep });
  // Declared only: the automatic half is off, one hop out included.
  if (declaredOnly) return { selection, clock };
  if (options.reach === "named") {
    // Named only: what one hop out would have added is shown, vetoed `reach_named`, never sent.
    const shown = await reachShown(compiled, selection, { match, explicit });
    return { selection: reachedFrom(compiled, shown.selection, shown.batch), clock };
  }

  const reached = await reach(compiled, selection, { match, explicit });
  const batch = reached.batch;
  const taken = takenGroups(reached.selection, batch);
  selection = reachedFrom(compiled, reached.selection, batch);
  selection = timed(selection, { clock, sticky, batch });
  selection = chance(groups(selection, { seed, keep, batch, taken }), { seed, keep, batch });
  return { selection, clock };
}

/** With the switch at `declared`: a card in by its words is shown, vetoed `lore_declared`. */
function declaredOr(entry: Selected): Selected {
  return entry.verdict === "fired" && !isDeclared(entry) ? vetoed(entry, { reason: "lore_declared" }) : entry;
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
    const source = sources.find((s) => proseOf(compiled, s.card) === entry.trigger);
    if (source) from.set(entry.id, source.id);
  }
  return selection.map((e) => {
    const id = from.get(e.id);
    return id === undefined ? e : { ...e, reachedFrom: id };
  });
}
