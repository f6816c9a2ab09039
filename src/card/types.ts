/**
 * The card model shared by every module. A card is one Markdown file with YAML frontmatter; the
 * directory it sits in decides its kind. These types are plain data: no I/O lives here.
 */

/** One kind of card: where its files live and which `## sections` its form offers. */
export interface KindDef {
  /** Stable kind name: people, event, place, thing, slang, entry (or one added in kinds.yaml). */
  name: string;
  /** Directory relative to the vault root; "" for the vault root itself (kind `entry`). */
  dir: string;
  /** Section headings offered for this kind, in order. Empty for free-form kinds. */
  sections: string[];
  /** The section `update_recent` replaces; undefined when the kind has none. */
  recent?: string;
}

/** The vault's kind table, after defaults and `kinds.yaml` are merged. */
export interface KindsConfig {
  kinds: KindDef[];
  /** Section headings (case-folded comparison) kept in the file but never matched or injected. */
  privateSections: string[];
  /** What in kinds.yaml was ignored (an unknown setting), for `check`; absent when nothing was. */
  warnings?: string[];
  /** Folders a note app keeps for itself (card/note-apps.ts), never read for cards; absent when none. */
  skipped?: { dir: string; reason: string }[];
}

/**
 * Secondary words (SillyTavern's optional filter): `all` every word somewhere in the card's window
 * (AND ALL), `any` at least one (AND ANY), `not` none of them in a message that hit the card (NOT ANY),
 * `not_all` not every one of them there (NOT ALL: vetoed only when all appear).
 */
export interface Secondary {
  all: string[];
  any: string[];
  not: string[];
  notAll: string[];
}

/**
 * When a card is put in front of the model (README "Which cards fire"): `automatic` when its words are
 * noticed, `always` every turn named or not, `manual` only when explicitly asked for, `never`.
 */
export type Policy = "automatic" | "always" | "manual" | "never";

export type PromptRole = "system" | "user" | "assistant";

/**
 * Where a chosen card goes. `position` names a place (SillyTavern's and the card spec's names, see
 * card/rules.ts POSITIONS); null = the surface's default place. `depth` counts messages back from the
 * newest (only with `at_depth`); `role` is the message role there.
 */
export interface CardPlacement {
  position: string | null;
  depth: number | null;
  role: PromptRole | null;
}

/**
 * The lorebook semantics of a card beyond its words (README "Lorebook fields"), resolved from its
 * frontmatter and its V3 decorators (explicit frontmatter wins over a decorator). Absent from a
 * CardMeta when every value is the default, so plain cards stay small in the index.
 */
/** The blocks a card may ask to start in (recall/stages/place.ts). */
export type TierHint = "stable" | "volatile";

export interface CardRules {
  policy: Policy;
  /** Keys compared with their case (default false). */
  caseSensitive: boolean;
  /** true: every term must stand as a whole word; false: plain substring even for one character; null: ours (one-character terms whole, longer substring). */
  wholeWords: boolean | null;
  /** Every keyword and alias is a regular expression (CCv3 `use_regex`); `/pattern/flags` keys always are. */
  regex: boolean;
  /** The card's window counted in messages (SillyTavern and CCv3 count messages); overrides scan_depth. 0 = no message. */
  scanMessages: number | null;
  /** Insertion order inside its placement: lower first (SillyTavern `order`, CCv3 `insertion_order`). */
  order: number | null;
  /** Inclusion groups: of the fired cards sharing a group, one is chosen. */
  groups: string[];
  groupOverride: boolean;
  /** Weight in the seeded draw among a group's cards (default 100). */
  groupWeight: number;
  /** Keep only the group's best-scored cards before the draw; null = the setting's default (off). */
  groupScoring: boolean | null;
  /** Chance in percent (0–100, default 100) that a noticed card fires; seeded, so reproducible. */
  probability: number;
  /** Never reached through another card's text. */
  excludeRecursion: boolean;
  /** Its own text never reaches other cards. */
  preventRecursion: boolean;
  /** Fires only when reached through another card's text. */
  delayUntilRecursion: boolean;
  /** Stays in for this many messages after it fired (0 = off). */
  sticky: number;
  /** Cannot fire again for this many messages after it (or its stickiness) ended (0 = off). */
  cooldown: number;
  /** Cannot fire before the conversation has this many messages (0 = off). */
  delay: number;
  /** Not counted against the budget (SillyTavern `ignoreBudget`). */
  ignoreBudget: boolean;
  /**
   * `tier:` which block the card asks to start in when a surface sends stable and volatile blocks
   * (the writing app's `use(node, "stable")`); null: its policy decides. A real change wins over it.
   */
  tierHint: TierHint | null;
  placement: CardPlacement;
  /** `@@additional_keys` lines: each is a group of which at least one word must be in the window. */
  additionalKeys: string[][];
  /** `@@exclude_keys`: none of these may be in the window. */
  excludeKeys: string[];
  /** `@@activate_only_after N`: only after N assistant messages. */
  activateOnlyAfter: number | null;
  /** `@@activate_only_every N`: only when the assistant message count is a multiple of N. */
  activateOnlyEvery: number | null;
  /** `@@keep_activate_after_match`: once fired, stays in for the rest of the conversation. */
  keepAfterMatch: boolean;
  /** `@@dont_activate_after_match`: once fired, never again in this conversation. */
  dontAfterMatch: boolean;
}

/** A `## heading` and the text under it, verbatim (without the heading line). */
export interface Section {
  heading: string;
  text: string;
  private: boolean;
}

/** Everything the engine needs to match a card, small enough to keep in the persisted index. */
export interface CardMeta {
  /** File name without `.md`; unique within its kind. */
  key: string;
  kind: string;
  /** Path relative to the vault root, with `/` separators. */
  path: string;
  title: string;
  keywords: string[];
  aliases: string[];
  secondary: Secondary;
  /** The card's own scan depth in turns, or null to use the caller's. */
  scanDepth: number | null;
  refs: string[];
  priority: number;
  enabled: boolean;
  inject: boolean;
  /** Modification time in nanoseconds since the epoch, as a decimal string (exact). */
  mtime: string;
  size: number;
  /** First non-empty line of the public text, for "see also" lines and list previews. */
  firstLine: string;
  /** Length in characters of the public (non-private) body. */
  publicChars: number;
  /** Lorebook semantics; absent = every default (card/rules.ts `rulesOf` fills them in). */
  rules?: CardRules;
  /**
   * The person's own labels, to sort and filter cards by (`tags: [season 2, draft]`): never matched,
   * never injected, never exported. Absent when the card has none.
   */
  tags?: string[];
  /**
   * The book the card is in, when a recall reads several books and the card is not the vault's own
   * (recall/_union.ts); its id is then `book:kind/key`. Never stored: the folder says it.
   */
  book?: string;
}

/** A fully parsed card: its metadata plus the raw frontmatter and the body split into sections. */
export interface Card extends CardMeta {
  /** Every frontmatter key as written (unknown keys included), after safe YAML parsing. */
  frontmatter: Record<string, unknown>;
  /** Text before the first `##` heading. */
  preamble: string;
  sections: Section[];
  /** The whole body after the frontmatter, exactly as in the file (line endings normalised to \n). */
  body: string;
  /** Frontmatter values that could not be understood and fell back to defaults (for `check`). */
  warnings: string[];
}

/** A card that could not be parsed: reported, skipped, never fatal for the rest of the vault. */
export interface BrokenCard {
  path: string;
  kind: string;
  key: string;
  error: string;
}

/**
 * A card to be written: what importers, the MCP server, the API and `init` hand to the vault.
 * `frontmatter` holds every key to write (title, keywords, … and any foreign keys such as `st:`);
 * `body` is the Markdown after the frontmatter.
 */
export interface CardDraft {
  kind: string;
  key: string;
  frontmatter: Record<string, unknown>;
  body: string;
}
