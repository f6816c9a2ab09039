// The words the page uses for the project's terms: each in plain words, with the technical term kept for
// a tooltip (`title`), so the page speaks the person's language and still names what the docs name.

/** A kind's name as one card of it is called ("New person card", not "New people card"). */
const KIND_NOUNS: Record<string, string> = {
  people: "person",
  event: "event",
  place: "place",
  thing: "thing",
  slang: "phrase",
  entry: "entry",
};

export function kindNoun(kind: string): string {
  return KIND_NOUNS[kind] ?? kind;
}

/** `context:` (the card's policy): when the card comes in. */
export const POLICY_WORDS: Record<string, { label: string; short: string; hint: string }> = {
  automatic: {
    label: "When its words come up",
    short: "on its words",
    hint: "Sent when a keyword, alias or its title is in the conversation (context: automatic).",
  },
  always: {
    label: "Every turn (always on)",
    short: "always on",
    hint: "Sent on every turn, whatever is said (context: always; SillyTavern's “constant”).",
  },
  manual: {
    label: "Only when asked for by name",
    short: "only when asked",
    hint: "Never sent on its own; an agent or `try --with` can ask for it (context: manual).",
  },
  never: {
    label: "Never (kept, not sent)",
    short: "never sent",
    hint: "Kept in the vault and never sent (context: never).",
  },
};

/** Where a card goes in the prompt (`position:`), in plain words. */
export const POSITION_WORDS: Record<string, string> = {
  "": "Where the tool puts cards (the default)",
  before_char: "Before the character description",
  after_char: "After the character description",
  an_top: "At the top of the author's note",
  an_bottom: "At the bottom of the author's note",
  at_depth: "Inside the chat, some messages back",
  em_top: "Before the example messages",
  em_bottom: "After the example messages",
  outlet: "In a named outlet",
  before_desc: "Before the description (card spec)",
  after_desc: "After the description (card spec)",
  personality: "With the personality (card spec)",
  scenario: "With the scenario (card spec)",
};

/** Why a card that fired was not sent, as recall names it. */
export const REASON_WORDS: Record<string, string> = {
  budget: "no room left in the budget",
  budget_tokens: "no room left in the token budget",
  surface_cap: "no room left in what the tool may add",
  empty: "its text is empty",
  in_context: "already in the conversation",
  recorded: "already in the conversation",
  present: "already in the conversation",
  quoted: "already quoted in the conversation",
  not_automatic: "only sent when asked for",
  never: "set never to be sent",
  recursion_only: "only comes in through another card's text",
  reach_named: "reach: named, so what a card's text names stays out",
  lore_declared: "lore: declared, so only always-on cards and cards asked for go in",
  secondary: "its other words (secondary) say no",
  delay: "too early in the conversation (delay)",
  cooldown: "resting after it came in (cooldown)",
  timing: "its timing rules say not now",
  group: "another card of its group was chosen",
  probability: "its chance said no this time",
  no_term: "none of its words is in the conversation",
  disabled: "it is disabled",
};

/**
 * The lore switch in force when it is not `auto` (docs/CARDS.md "The lore switch"): what a try, or a
 * recorded turn, put in front of the model.
 */
export const LORE_WORDS: Record<string, string> = {
  declared: "declared: only the always-on cards and the cards asked for by name, nothing noticed",
  none: "none: nothing at all, not even the always-on cards",
};

/** Whether a card is sent, in a word or two (the tag before its line). */
export const VERDICT_WORDS: Record<string, string> = {
  chosen: "sent",
  in_context: "already in",
  left_out: "not sent",
  vetoed: "not sent",
  fired: "came up",
  not_noticed: "not noticed",
};

/** How a card that fired on no word of the sentence came in (`via`). */
export const VIA_WORDS: Record<string, string> = {
  always: "always on",
  explicit: "asked for",
  sticky: "still in from before (sticky)",
  reached: "named in another card's text",
};

/** The tiers of what the gateway adds (README "Placement, stable and volatile"). */
export const TIER_WORDS: Record<string, { label: string; hint: string }> = {
  stable: {
    label: "kept in place",
    hint: "stable: added once and sent again unchanged, so the provider's cache keeps hitting",
  },
  volatile: { label: "this turn only", hint: "volatile: added to the newest message only" },
  placed: { label: "at its own place", hint: "placed: put where the card's position asks" },
};

/** Which runtime wrote a version. */
export const WRITER_WORDS: Record<string, string> = {
  ui: "the editor",
  api: "the HTTP API",
  mcp: "an MCP client",
  cli: "the command line",
  import: "an import",
  hook: "the hook",
};

/** Where a conversation came from: the surface and the API it spoke. */
export function clientWords(surface: string, api?: string | null): string {
  if (surface === "hook") return "Claude Code (hook)";
  const apis: Record<string, string> = {
    openai: "OpenAI chat API",
    responses: "OpenAI Responses API",
    anthropic: "Anthropic API",
  };
  return api ? `gateway · ${apis[api] ?? api}` : "gateway";
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
