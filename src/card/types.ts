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
}

export interface Secondary {
  all: string[];
  any: string[];
  not: string[];
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
