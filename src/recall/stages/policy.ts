/**
 * Stage: policy, who is in the selection before any word is weighed. A card's context policy
 * (README "Which cards fire", card/rules.ts) decides how a noticed card comes in, and brings cards in
 * that were not noticed at all:
 *   automatic  in when its words are noticed (`named`);
 *   always     in every turn, named or not (`always`; score 0 unless its words were noticed too);
 *   manual     never in on its words (vetoed `not_automatic`); only when asked for by id;
 *   never      never in: noticed or asked for, it shows as vetoed `never`.
 * Cards asked for by id (`explicit`) come in whatever their words say (`explicit`), and cards still
 * sticky from an earlier turn (timed.ts) come in named or not (`sticky`). A disabled card is not in the
 * matcher and is never looked up here, so it never appears.
 */
import { rulesOf } from "../../card/rules.ts";
import type { CardMeta } from "../../card/types.ts";
import type { Compiled } from "../_compiled.ts";
import { type Fired, type Selected, type Selection, type Via, vetoed } from "../selection.ts";
import { idOf } from "./notice.ts";

/** The cards that come in without being noticed this turn. */
export interface Unnamed {
  always: readonly CardMeta[];
  explicit: readonly CardMeta[];
  sticky: readonly CardMeta[];
}

/** An entry for a card that came in without its words. */
export function unnamedEntry(card: CardMeta, via: Via): Fired {
  const policy = rulesOf(card).policy;
  return {
    id: idOf(card),
    card,
    hits: [],
    score: 0,
    found: new Set(),
    trigger: "",
    verdict: "fired",
    via,
    policy,
  };
}

/**
 * Each noticed entry gets its `via` and its policy's verdict; the unnamed cards are added after them
 * (always, then asked for, then sticky), each once.
 */
export function policy(noticed: Selection, unnamed: Unnamed, explicit: ReadonlySet<string>): Selected[] {
  const sticky = new Set(unnamed.sticky.map(idOf));
  const out = noticed.map((entry) => judged(entry, explicit, sticky));
  const seen = new Set(out.map((e) => e.id));
  const add = (cards: readonly CardMeta[], via: Via) => {
    for (const card of cards) {
      const id = idOf(card);
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(judged(unnamedEntry(card, via), explicit, sticky));
    }
  };
  add(unnamed.always, "always");
  add(unnamed.explicit, "explicit");
  add(unnamed.sticky, "sticky");
  return out;
}

/**
 * The policy's verdict on one entry and how it came in. A still-sticky card is in because it is sticky,
 * named again or not (SillyTavern activates sticky entries before any key check), so its words are not
 * weighed again; a `manual` card sticky from the turn it was asked for stays in the same way.
 */
export function judged(
  entry: Selected,
  explicit: ReadonlySet<string>,
  sticky: ReadonlySet<string> = new Set(),
): Selected {
  if (entry.verdict !== "fired") return entry;
  if (entry.policy === "never") return vetoed(entry, { reason: "never" });
  if (explicit.has(entry.id)) return { ...entry, via: "explicit" };
  if (entry.policy === "always") return { ...entry, via: "always" };
  if (sticky.has(entry.id)) return { ...entry, via: "sticky" };
  if (entry.policy === "manual") return vetoed(entry, { reason: "not_automatic" });
  return entry;
}

/**
 * The enabled card with this id (`kind/key`), or undefined. Straight from the index row of its file:
 * a cold hook with timed memory must not decode every card to build the name tables.
 */
export function cardById(compiled: Compiled, id: string): CardMeta | undefined {
  if (compiled.byId) return compiled.byId(id);
  const slash = id.indexOf("/");
  const kind = compiled.kinds.kinds.find((k) => k.name === id.slice(0, slash));
  if (slash === -1 || kind === undefined) return undefined;
  const key = id.slice(slash + 1);
  const card = compiled.loaded.index.entries.meta(kind.dir === "" ? `${key}.md` : `${kind.dir}/${key}.md`);
  return card?.enabled ? card : undefined;
}

/** Every `always` card of the vault (the matcher keeps their positions). */
export function alwaysCards(compiled: Compiled): CardMeta[] {
  const { cards, matcher } = compiled.loaded;
  return matcher.alwaysCards().flatMap((i) => cards.at(i) ?? []);
}

/** The cards that come in unnamed this turn. */
export function unnamedCards(
  compiled: Compiled,
  explicit: ReadonlySet<string>,
  sticky: readonly string[],
): Unnamed {
  const byId = (ids: Iterable<string>) => [...ids].flatMap((id) => cardById(compiled, id) ?? []);
  return { always: alwaysCards(compiled), explicit: byId([...explicit].sort()), sticky: byId(sticky) };
}
