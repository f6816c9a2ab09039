/**
 * The context door's words: one line per explained card (explain.ts), read by people in `lorecards
 * explain`, the editor's try box and conversations. A line is "<title> [<kind>] <state>: <how it came
 * in>; <policy>; <place>, <tier>; <the decision>", each part from the data on the card, nothing new.
 */
import type { CardPlacement } from "../card/types.ts";
import type { ExplainedCard, Why } from "./explain.ts";

type Card = Omit<ExplainedCard, "line">;

/** `titles`: id → title of the cards in the selection, to name a winner or a source by its title. */
export function lineOf(card: Card, titles: ReadonlyMap<string, string>): string {
  const name = (id: string) => {
    const title = titles.get(id);
    return title === undefined ? id : `“${title}”`;
  };
  const parts = [
    cameIn(card, name),
    `policy ${card.policy}`,
    `${placeOf(card.placement)}, ${card.tier}${hinted(card.why.tier_hint)}`,
    decision(card, name),
  ];
  return `${card.title} [${card.kind}] ${stateOf(card)}: ${parts.filter((p) => p !== "").join("; ")}`;
}

function stateOf(card: Card): string {
  switch (card.verdict) {
    case "chosen":
      return "goes in";
    case "in_context":
      return "already in context";
    case "left_out":
      return "left out";
    default:
      return "does not fire";
  }
}

/** Messages back, in words: 0 is the current message. */
export function whereSaid(back: number): string {
  if (back === 0) return "the current message";
  return back === 1 ? "1 message back" : `${back} messages back`;
}

function quoted(words: readonly string[]): string {
  return words.map((w) => `“${w}”`).join(", ");
}

/** The hit terms grouped by where they were said: “a”, “b” in the current message, “c” in 2 messages back. */
function matched(card: Card): string {
  const byPlace = new Map<string, string[]>();
  for (const h of card.hits) {
    const place = h.messages.map(whereSaid).join(" and ") || "its window";
    byPlace.set(place, [...(byPlace.get(place) ?? []), h.term]);
  }
  return [...byPlace].map(([place, terms]) => `${quoted(terms)} in ${place}`).join(", ");
}

function cameIn(card: Card, name: (id: string) => string): string {
  if (card.earlier) {
    const when = card.earlier.at.slice(0, 16).replace("T", " ");
    return `as of ${when} UTC (version ${card.earlier.version}), asked for beside the card as it is now`;
  }
  switch (card.via) {
    case "named":
      return `named: ${matched(card)}`;
    case "always":
      return card.hits.length > 0 ? `always on (and named: ${matched(card)})` : "always on";
    case "sticky":
      return "still sticky from an earlier turn";
    case "explicit":
      return "asked for by name";
    case "reached": {
      const from = card.why.reached_from ? `${name(card.why.reached_from)}’s text` : "another card’s text";
      return `reached through ${from} (${quoted(card.hits.map((h) => h.term))})`;
    }
    default:
      return "";
  }
}

/** A tier hint, as the tier's words go on: kept, or what won over it. */
function hinted(hint: Why["tier_hint"]): string {
  if (!hint) return "";
  if (hint.kept) return ` (its tier hint asks ${hint.asked})`;
  return ` (its tier hint asks ${hint.asked}; an edit, a stable block already sent or a place of its own wins)`;
}

function placeOf(p: CardPlacement): string {
  const role = p.role ? ` as ${p.role}` : "";
  if (p.depth !== null) return `at depth ${p.depth}${role}`;
  if (p.position !== null && p.position !== "outlet") return `at ${p.position}${role}`;
  return "the surface’s default place";
}

function decision(card: Card, name: (id: string) => string): string {
  const { why } = card;
  switch (card.reason) {
    case null:
      return chosenText(card);
    case "no_term":
      return noTerm(card);
    case "disabled":
      return "disabled (enabled: false): it is never matched";
    case "not_automatic":
      return card.policy === "manual"
        ? "manual: it fires only when asked for by name (try --with)"
        : "inject: false: it never fires on its own words";
    case "never":
      return "policy never: it never fires";
    case "secondary":
      return why.secondary ? secondaryText(why.secondary) : "its secondary words stop it";
    case "probability":
      return rollText(why.roll);
    case "group":
      return why.group ? groupText(why.group, name) : "another card of its inclusion group won";
    case "delay":
    case "cooldown":
    case "timing":
      return why.clock ? clockText(why.clock) : `stopped by its ${card.reason}`;
    case "recursion_only":
      return "delay_until_recursion: it fires only when reached through another card’s text, and none reached it";
    case "lore_declared":
      return "not sent (lore: declared): only always-on cards and cards asked for go in";
    case "reach_named":
      return "not sent (reach: named): only what was named goes in, not what cards’ text names";
    case "recorded":
      return why.in_context?.since_turn != null
        ? `already sent at turn ${why.in_context.since_turn} and still in context: not sent again`
        : "recorded as already in context: not sent again";
    case "present":
      return "a block of ours already in the request holds it: not sent again";
    case "quoted":
      return "its text is already in the request, or goes in with a card of the same text (the same book active in the client as well, such as SillyTavern's World Info, or imported twice): not sent twice";
    case "empty":
      return "nothing public to send (only private sections or comments)";
    default:
      return budgetText(card, why, name);
  }
}

function chosenText(card: Card): string {
  const room = card.earlier
    ? "not counted against the budget"
    : card.why.over_budget
      ? "over the budget alone, and in all the same: the top card always goes in"
      : "in budget";
  const parts = [card.chars === null ? room : `${room}, ${card.chars} chars`];
  if (card.why.edited) parts.push("edited since it was last sent: sent again");
  if (card.why.roll) parts.push(rollText(card.why.roll));
  return parts.join("; ");
}

function noTerm(card: Card): string {
  const window = card.why.window;
  if (!window) return "no term of it in the window";
  const span = window.messages === 1 ? "the current message" : `the last ${window.messages} messages`;
  const near = window.nearest;
  if (near === null) return `no term of it in its window (${span}), nor earlier`;
  if (near.back >= window.messages)
    return `no term of it in its window (${span}); “${near.term}” was said ${whereSaid(near.back)}, outside it`;
  return `“${near.term}” is in ${whereSaid(near.back)} but does not count there (its case or whole-word rule)`;
}

function secondaryText(block: NonNullable<Why["secondary"]>): string {
  const words = quoted(block.words);
  switch (block.rule) {
    case "all":
      return `secondary all: ${words} is not in its window`;
    case "any":
      return `secondary any: none of ${words} is in its window`;
    case "not":
      return `secondary not: ${words} is in a message that named it`;
    case "not_all":
      return `secondary not_all: all of ${words} are in its window`;
    case "additional_keys":
      return `@@additional_keys: none of ${words} is in its window`;
    case "exclude_keys":
      return `@@exclude_keys: ${words} is in its window`;
  }
}

function rollText(roll: Why["roll"]): string {
  if (!roll) return "its probability draw failed";
  if (roll.draw === null) return `probability ${roll.chance}: never drawn`;
  const drew = roll.draw.toFixed(1);
  return roll.draw < roll.chance
    ? `probability ${roll.chance}: drew ${drew}, below it`
    : `probability ${roll.chance}: drew ${drew}, not below it`;
}

function groupText(group: NonNullable<Why["group"]>, name: (id: string) => string): string {
  const winner = group.winner === null ? "another card" : name(group.winner);
  const lost = `lost inclusion group “${group.group}”`;
  switch (group.how) {
    case "taken":
      return `${lost}: ${winner} filled it before the reach pass`;
    case "kept":
      return `${lost}: ${winner} holds it (still sticky, or asked for)`;
    case "scoring":
      return `${lost}: group scoring kept the cards that matched more terms (${winner} won)`;
    case "override":
      return `${lost}: ${winner} overrides (group_override)`;
    case "draw":
      return `${lost}: the weighted draw chose ${winner}`;
  }
}

function clockText(clock: NonNullable<Why["clock"]>): string {
  switch (clock.rule) {
    case "delay":
      return `delay: the conversation has ${clock.now} message(s); it waits for ${clock.until}`;
    case "cooldown":
      return `cooling down: message ${clock.now} now, it may fire again at message ${clock.until}`;
    case "activate_only_after":
      return `@@activate_only_after: ${clock.now} assistant message(s) so far; it needs ${clock.until}`;
    case "activate_only_every":
      return `@@activate_only_every: ${clock.now} assistant message(s); next at ${clock.until}`;
    case "dont_activate_after_match":
      return "@@dont_activate_after_match: it fired once in this conversation, never again";
  }
}

function budgetText(card: Card, why: Why, name: (id: string) => string): string {
  const room = why.budget;
  // In characters, whichever budget it is: the token budget's count is the tokenizer's, not kept here.
  const takers = (unit: string) =>
    room?.taken_by.map((t) => `${name(t.id)} (${t.chars}${unit})`).join(", ") || "nothing";
  const need = (unit: string) => (card.chars === null ? "" : `; it needs ${card.chars}${unit}`);
  switch (card.reason) {
    case "budget":
      if (room?.limit === 0) return "the character budget is 0: only always-on and asked-for cards go in";
      return `over the character budget: ${takers("")} took ${room?.spent ?? 0} of ${room?.limit ?? "?"} chars${need("")}`;
    case "budget_tokens":
      return `over the token budget: ${takers(" chars")} took the room${need(" chars")}`;
    case "surface_cap":
      return `over the surface’s cap on its output: ${takers(" chars")} took the room${need(" chars")}`;
    default:
      return card.reason ? `left out: ${card.reason}` : "";
  }
}
