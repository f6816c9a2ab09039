/**
 * Input and output schemas of the three tools, with descriptions written for the model that calls them.
 * The kinds, their sections, their recent section and the private sections come from the vault's own
 * kind table (kinds.yaml included), so the model sees the real choices. Limits are part of the contract:
 * a call over a limit is refused with a message naming the field, before anything touches the vault.
 */
import * as z from "zod";
import { charLength, formatCount, MAX_TERM_CHARS, MAX_TITLE_CHARS } from "../card/index.ts";
import type { KindsConfig } from "../card/types.ts";

/** Per section (and per `update_recent` text): generous for notes, small enough to never bloat a card. */
export const MAX_SECTION_CHARS = 64 * 1024;
export const MAX_NAME_CHARS = 200;
export const MAX_TERMS = 100;
export const MAX_SECTIONS = 50;
/**
 * The sections of one new card in all: a card the editor can still save whole, whose requests take
 * 1 MiB of JSON (api/index.ts), even in a script of three bytes a character.
 */
export const MAX_CARD_SECTION_CHARS = 256 * 1024;
/** list_cards pages: one page of a 10k-card vault must still fit comfortably in a model's context. */
export const LIST_DEFAULT_LIMIT = 200;
export const LIST_MAX_LIMIT = 1000;

const HEADING_LINE = /^##[ \t]+\S/m;
const noHeadings = (s: string) => !HEADING_LINE.test(s);
const NO_HEADINGS = "must not contain '## ' heading lines (they would start another section)";

/** A string of at most `max` characters; the refusal names its length and the limit. */
function bounded(max: number) {
  const error = (iss: { input?: unknown }) =>
    `is ${formatCount(charLength(String(iss.input)))} characters long; the limit is ${formatCount(max)}`;
  return z.string().trim().min(1, "must not be empty").max(max, { error });
}

const term = bounded(MAX_NAME_CHARS);
/** Titles and match terms share the card limits of every writer (card/limits.ts). */
const titleText = bounded(MAX_TITLE_CHARS);
const matchTerm = bounded(MAX_TERM_CHARS);
const sectionText = z.string().max(MAX_SECTION_CHARS, `is limited to ${MAX_SECTION_CHARS} characters`);
const kindName = z.string().trim().min(1).max(64);
/** A memory index block's session or query id (recall/stages/index-block.ts; state keeps 256 characters). */
const indexId = z.string().trim().min(1).max(256);

/** One line per kind: its usual sections and which one update_recent rewrites. */
export function kindsGuide(config: KindsConfig): string {
  return config.kinds
    .map((k) => {
      const sections = k.sections.length > 0 ? `sections ${k.sections.join(", ")}` : "free-form";
      const recent = k.recent ? `; recent section "${k.recent}"` : "; no recent section";
      return `${k.name} (${sections}${recent})`;
    })
    .join("; ");
}

/** The kinds whose cards update_recent can change. */
export function recentKinds(config: KindsConfig): string[] {
  return config.kinds.filter((k) => k.recent !== undefined).map((k) => k.name);
}

function privateNote(config: KindsConfig): string {
  const names = config.privateSections.map((p) => `"${p}"`).join(", ");
  return names === ""
    ? "This vault has no private sections."
    : `A section headed ${names} is private: stored and readable with read_card, never put in front of a model.`;
}

export function writeCardShape(config: KindsConfig) {
  const kinds = config.kinds.map((k) => k.name);
  const withRecent = recentKinds(config);
  return {
    mode: z
      .enum(["create", "update_recent"])
      .describe(
        '"create": write a new card (needs kind and title; fails if a card with that title or key exists). ' +
          '"update_recent": replace the text of the recent section of an existing card (needs name and ' +
          `text; only ${withRecent.join(", ") || "no"} cards have one); every other byte of the file stays.`,
      ),
    kind: kindName
      .optional()
      .describe(
        `The kind of card, one of: ${kinds.join(", ")}. Required for create; for update_recent it only ` +
          "narrows the search for the name.",
      ),
    title: titleText
      .optional()
      .describe(
        'create: what the person, place or thing is usually called, e.g. "Alice" or "the corner cafe".',
      ),
    key: term
      .optional()
      .describe(
        "create: the file name without .md; defaults to the title. Give one only when the title contains " +
          'characters a file name cannot have (/ \\ < > : " | ? *, control characters) or is a Windows ' +
          "device name such as CON or aux.txt.",
      ),
    keywords: z
      .array(matchTerm)
      .max(MAX_TERMS)
      .optional()
      .describe(
        "create: words that bring this card into the conversation when they appear (the title always counts; " +
          "matching ignores case and finds a term inside longer words). Specific names and phrases work: " +
          '["Alice", "Alice Martin", "payments team"]. Common words fire on everything: not ["she", "work", ' +
          '"today"].',
      ),
    aliases: z
      .array(matchTerm)
      .max(MAX_TERMS)
      .optional()
      .describe('create: other names for the same thing, which also bring the card up, e.g. ["Ally", "AM"].'),
    priority: z
      .number()
      .int()
      .min(-1_000_000)
      .max(1_000_000)
      .optional()
      .describe(
        "create: which card comes first when two fire equally (higher first; default 0). Only a few cards " +
          "may hold each raised priority (by default 5 at 2 or above, 15 at 1): leave it out unless the " +
          "card matters more than most.",
      ),
    sections: z
      .array(
        z.object({
          heading: term.refine(
            (h) => !h.includes("\n") && !h.startsWith("#"),
            "must be one line without '#'",
          ),
          text: sectionText.refine(noHeadings, NO_HEADINGS),
        }),
      )
      .max(MAX_SECTIONS)
      .refine((list) => list.reduce((n, s) => n + s.text.length, 0) <= MAX_CARD_SECTION_CHARS, {
        error: (iss) => {
          const list = iss.input as { text: string }[];
          const total = list.reduce((n, s) => n + s.text.length, 0);
          return `hold ${formatCount(total)} characters in all; the limit is ${formatCount(MAX_CARD_SECTION_CHARS)}, so that the editor can still save the card`;
        },
      })
      .optional()
      .describe(
        `create: the card's body as ## sections, in order. Usual sections per kind: ${kindsGuide(config)}. ` +
          `Other headings are kept as written. ${privateNote(config)}`,
      ),
    name: term
      .optional()
      .describe('update_recent: the card to change: its title, its key (file name), or "kind/key".'),
    text: sectionText
      .refine(noHeadings, NO_HEADINGS)
      .optional()
      .describe("update_recent: the new text of the recent section; it replaces the old text entirely."),
  };
}

export function readCardShape(config: KindsConfig) {
  return {
    name: term.describe(
      'The card: its title, its key (file name without .md), or "kind/key" like "people/Alice".',
    ),
    kind: kindName
      .optional()
      .describe(`Only look among cards of this kind (${config.kinds.map((k) => k.name).join(", ")}).`),
    session: indexId
      .optional()
      .describe(
        "When the card was listed in a memory index block: the session it names. Pass it with query; " +
          "it records that the card was wanted (leave both out otherwise).",
      ),
    query: indexId
      .optional()
      .describe("When the card was listed in a memory index block: the query it names."),
    as_of: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .optional()
      .describe(
        "An earlier version of the card, a history version number or a date (2026-06-01): the card as " +
          "it was then comes back under `earlier`, beside the card as it is now.",
      ),
  };
}

export function listCardsShape(config: KindsConfig) {
  return {
    kind: kindName
      .optional()
      .describe(
        `Only cards of this kind (${config.kinds.map((k) => k.name).join(", ")}); omit for every kind.`,
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Skip this many cards (for the next page). Default 0."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIST_MAX_LIMIT)
      .optional()
      .describe(
        `At most this many cards per answer (default ${LIST_DEFAULT_LIMIT}, at most ${LIST_MAX_LIMIT}).`,
      ),
  };
}

type Shape<T extends Record<string, z.ZodType>> = z.infer<z.ZodObject<T>>;
export type WriteCardArgs = Shape<ReturnType<typeof writeCardShape>>;
export type ReadCardArgs = Shape<ReturnType<typeof readCardShape>>;
export type ListCardsArgs = Shape<ReturnType<typeof listCardsShape>>;

// Output schemas (MCP "structured content"): clients that understand them get the same data as the text.

export const writeResultShape = {
  status: z.enum(["created", "updated"]),
  kind: z.string(),
  key: z.string(),
  path: z.string().describe("Relative to the vault root."),
  title: z.string(),
  warnings: z
    .array(z.object({ code: z.string(), detail: z.string(), term: z.string().optional() }))
    .describe(
      "What is worth fixing about the card's trigger words (the card was written): no keywords, two " +
        "keywords typed as one, a word that fires on ordinary text, another card's title.",
    ),
};

export const readResultShape = {
  kind: z.string(),
  key: z.string(),
  path: z.string(),
  title: z.string(),
  frontmatter: z.record(z.string(), z.unknown()).describe("Every frontmatter key as written."),
  rules: z
    .record(z.string(), z.unknown())
    .describe(
      "What the card's lorebook fields and decorators resolve to; only values that are not the default.",
    ),
  preamble: z.string().describe("Text before the first ## heading."),
  sections: z.array(z.object({ heading: z.string(), text: z.string(), private: z.boolean() })),
  recent_section: z.string().nullable().describe("The section update_recent rewrites, or null."),
  private_note: z.string(),
  adoption: z
    .object({
      status: z.enum(["recorded", "repeated", "unknown_query", "not_listed", "not_recorded"]),
      card: z.string(),
      session: z.string(),
      query: z.string(),
      detail: z.string().optional(),
    })
    .optional()
    .describe(
      "With session and query: what became of the opening. recorded (counted), repeated (counted " +
        "before), unknown_query (no index under those ids), not_listed (that index did not list this " +
        "card), not_recorded (state could not be written; the card is read all the same).",
    ),
  earlier: z
    .object({ version: z.number(), at: z.string(), text: z.string() })
    .optional()
    .describe(
      "With as_of: the card file as it was then (its history version and time), beside it as it is now.",
    ),
};

export const listResultShape = {
  total: z.number().int().describe("Cards that match, over every page."),
  offset: z.number().int(),
  count: z.number().int().describe("Cards in this answer."),
  next_offset: z.number().int().nullable().describe("Offset of the next page, or null on the last page."),
  cards: z.array(
    z.object({
      kind: z.string(),
      key: z.string(),
      title: z.string(),
      keywords: z.array(z.string()),
      aliases: z.array(z.string()).optional(),
      enabled: z.literal(false).optional().describe("Present only when the card is switched off."),
      inject: z.literal(false).optional().describe("Present only when the card is never injected."),
    }),
  ),
  unreadable: z.array(z.object({ path: z.string(), error: z.string() })),
  books: z
    .array(
      z.object({
        name: z.string(),
        title: z.string(),
        characters: z.array(z.string()),
        active: z.enum(["auto", "asked"]),
        cards: z.number().int(),
      }),
    )
    .optional()
    .describe(
      "The vault's books, each with cards of its own that are not listed here: a person starts the " +
        "server with `lorecards mcp --book NAME` to work on one.",
    ),
};
