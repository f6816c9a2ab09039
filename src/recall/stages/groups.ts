/**
 * Stage: inclusion groups. Of the fired cards that share a group, one stays; the others are vetoed
 * `group`. The rules are SillyTavern's (world-info.js, its inclusion-group filter), decided per group:
 *   1. a group already filled (a card of it fired in an earlier pass: the reach pass sees the named
 *      pass's winners) takes no one more;
 *   2. a group holding still-sticky cards keeps exactly those (and cards asked for by id, which
 *      SillyTavern does not have: they are the person's explicit choice, so they win like sticky ones);
 *   3. group scoring, when any member asks for it (`group_scoring: true`; the global default is off,
 *      as SillyTavern's), drops the members that ask for it and have fewer matched terms than the
 *      best member;
 *   4. of what is left, an overriding member (`group_override`) wins: the highest `order`
 *      (SillyTavern's default 100 when unset), then priority, then id;
 *   5. else a weighted draw by `group_weight` (seeded, chance.ts), members in id order.
 * A card in several groups must win (or be alone) in each of them; losing any one vetoes it. Each loser
 * keeps how it lost its first group lost, and to whom (its `stop`), for the context door.
 */
import { rulesOf } from "../../card/rules.ts";
import { type GroupLoss, type Selected, type Selection, vetoed } from "../selection.ts";
import { draw } from "./chance.ts";

/** SillyTavern's insertion order of an entry that sets none. */
const DEFAULT_ORDER = 100;

export interface GroupOptions {
  seed: string;
  /** Ids that win their groups outright: still sticky, or asked for by id. */
  keep: ReadonlySet<string>;
  /** Only these ids compete (the reach pass); absent = every fired card. */
  batch?: ReadonlySet<string>;
  /** Groups already filled by an earlier pass, with the id of the card that filled each. */
  taken?: ReadonlyMap<string, string>;
}

export function groups(selection: Selection, options: GroupOptions): Selected[] {
  const members = new Map<string, Selected[]>();
  for (const entry of selection) {
    if (entry.verdict !== "fired" || (options.batch && !options.batch.has(entry.id))) continue;
    for (const name of rulesOf(entry.card).groups) {
      const list = members.get(name);
      if (list) list.push(entry);
      else members.set(name, [entry]);
    }
  }
  const losers = new Map<string, GroupLoss>();
  for (const [name, list] of members) {
    for (const [id, loss] of losersOf(name, list, options)) if (!losers.has(id)) losers.set(id, loss);
  }
  if (losers.size === 0) return [...selection];
  return selection.map((e) => {
    const stop = losers.get(e.id);
    return stop ? vetoed(e, { reason: "group", stop }) : e;
  });
}

/** The members of one group that do not stay, each with how it lost. */
function losersOf(name: string, list: readonly Selected[], options: GroupOptions): Map<string, GroupLoss> {
  const lose = (entries: readonly Selected[], how: GroupLoss["how"], winner?: string) =>
    entries.map((e): [string, GroupLoss] => [e.id, { group: name, how, ...(winner && { winner }) }]);
  const filledBy = options.taken?.get(name);
  if (filledBy !== undefined) return new Map(lose(list, "taken", filledBy));
  const kept = list.filter((e) => options.keep.has(e.id));
  if (kept.length > 0)
    return new Map(
      lose(
        list.filter((e) => !options.keep.has(e.id)),
        "kept",
        kept[0]!.id,
      ),
    );
  const pool = byScore(list);
  const scoredOut = list.filter((e) => !pool.includes(e));
  if (pool.length <= 1) return new Map(lose(scoredOut, "scoring", pool[0]?.id));
  const override = overrider(pool);
  const winner = override ?? weighted(name, pool, options.seed);
  const others = pool.filter((e) => e !== winner);
  return new Map([
    ...lose(scoredOut, "scoring", winner.id),
    ...lose(others, override ? "override" : "draw", winner.id),
  ]);
}

/** Group scoring: members that ask for it and matched fewer terms than the best member drop out. */
function byScore(list: readonly Selected[]): Selected[] {
  const scored = (e: Selected) => rulesOf(e.card).groupScoring === true;
  if (!list.some(scored)) return [...list];
  const best = Math.max(...list.map((e) => e.hits.length));
  return list.filter((e) => !scored(e) || e.hits.length >= best);
}

function overrider(pool: readonly Selected[]): Selected | undefined {
  const orderOf = (e: Selected) => rulesOf(e.card).order ?? DEFAULT_ORDER;
  return pool
    .filter((e) => rulesOf(e.card).groupOverride)
    .sort((a, b) => orderOf(b) - orderOf(a) || b.card.priority - a.card.priority || byId(a, b))[0];
}

/** The seeded weighted draw: a point in [0, total) falls in one member's share of the line. */
function weighted(name: string, pool: readonly Selected[], seed: string): Selected {
  const sorted = [...pool].sort(byId);
  const weights = sorted.map((e) => Math.max(0, rulesOf(e.card).groupWeight));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return sorted[0]!;
  const point = draw(seed, `group\u0000${name}`) * total;
  let reached = 0;
  for (const [i, entry] of sorted.entries()) {
    reached += weights[i]!;
    if (point < reached) return entry;
  }
  return sorted[sorted.length - 1]!;
}

function byId(a: Selected, b: Selected): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
