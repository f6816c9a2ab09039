/**
 * Every default a person can see, in one table: recall, the gateway, the hook and the servers spread
 * these into their options, and the CLI's help prints them from here (citty `default`s and
 * descriptions built from this table), so a default changed here changes everywhere it is said.
 */
export const DEFAULTS = {
  /** Characters of cards per injection; the top card always gets in. */
  budget: 800,
  /** Turns of history scanned for keywords (`--scan-depth` on every command; the gateway's old `--window`). */
  scanDepth: 3,
  /** Turns (prompts, for the hook) before the same card may go in again; 0 = every time. */
  reinjectAfter: 6,
  /** Where the gateway puts the cards: before the last user message, or a system prompt. */
  inject: "user",
  /**
   * How far recall reaches from the person's words: `one-hop` scans the fired cards' own text once for
   * more cards; `named` keeps only what was named. (`--reach`, settings.yaml `reach`.)
   */
  reach: "one-hop",
  /**
   * Which halves of the lore a request gets (the writing app's `auto_lore()` / `no_lore()`): `auto`
   * both, `declared` the always-on cards and the cards asked for only, `none` nothing at all.
   * (`X-Lorecards-Lore`, `--lore`, settings.yaml `lore`.)
   */
  lore: "auto",
  /**
   * Always-on cards that together send more than this many tokens a turn are worth a word (the
   * editor's budget panel and an import's answer, `GET /api/budget` `large`): they are sent whole,
   * whatever the budget, and a model pays for them on every turn (an imported book's constant entries
   * often do).
   */
  alwaysOnWarnTokens: 4000,
  /** The line that introduces the cards. */
  framing: "A memory surfaces:\n\n",
  /**
   * Tokens a turn above which the declared half (always-on cards, cards asked for), which no budget
   * trims, is said to be large: by `check`, `try`, `/api/try` and an import.
   */
  declaredWarnTokens: 4000,
  /** Where the servers listen. */
  host: "127.0.0.1",
  gatewayPort: 8765,
  uiPort: 8766,
  mcpPort: 8767,
} as const;

/**
 * The gateway's placements, for options and the `--inject` flag; `index` sends a compact index of the
 * cards instead of their text, before the last user message (README "Index mode and adoption").
 */
export const INJECT_PLACES = ["user", "system", "index"] as const;
export type InjectPlace = (typeof INJECT_PLACES)[number];

/** What the hook and `try` put in (`--inject`): the cards' text, or an index of them. */
export const INJECT_MODES = ["cards", "index"] as const;
export type InjectMode = (typeof INJECT_MODES)[number];

/** The lore switch's values, for options, the header, settings.yaml and the `--lore` flag. */
export const LORE_SWITCHES = ["auto", "declared", "none"] as const;
export type LoreSwitch = (typeof LORE_SWITCHES)[number];

/** Recall's reach settings, for options, settings.yaml and the `--reach` flag. */
export const REACHES = ["one-hop", "named"] as const;
export type Reach = (typeof REACHES)[number];
