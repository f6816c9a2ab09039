/**
 * Input schemas of the three tools, with descriptions written for the model that calls them. Limits
 * are part of the contract: a call over a limit is refused with a message naming the field, before
 * anything touches the vault.
 */
import * as z from "zod";

/** Per section (and per `update_recent` text): generous for notes, small enough to never bloat a card. */
export const MAX_SECTION_CHARS = 64 * 1024;
export const MAX_NAME_CHARS = 200;
export const MAX_TERMS = 100;
export const MAX_SECTIONS = 50;

const HEADING_LINE = /^##[ \t]+\S/m;
const noHeadings = (s: string) => !HEADING_LINE.test(s);
const NO_HEADINGS = "must not contain '## ' heading lines (they would start another section)";

const term = z.string().trim().min(1, "must not be empty").max(MAX_NAME_CHARS);
const sectionText = z.string().max(MAX_SECTION_CHARS, `is limited to ${MAX_SECTION_CHARS} characters`);

/** `kinds` lists the vault's kind names, so the model sees the real choices (kinds.yaml may add some). */
export function writeCardShape(kinds: string[]) {
  return {
    mode: z
      .enum(["create", "update_recent"])
      .describe(
        '"create": write a new card (needs kind and title; fails if a card with that name exists). ' +
          '"update_recent": replace only the "recent" section of an existing card (needs name and text); ' +
          "everything else in the file stays exactly as it was.",
      ),
    kind: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .describe(`Kind of card: one of ${kinds.join(", ")}. Required for create; optional for update_recent.`),
    title: term
      .optional()
      .describe(
        'create: the card\'s title, how the person, place or thing is usually called (e.g. "Alice").',
      ),
    key: term
      .optional()
      .describe(
        "create: the file name without .md; defaults to the title. Give one only when the title contains " +
          'characters a file name cannot have (/ \\ < > : " | ? *).',
      ),
    keywords: z
      .array(term)
      .max(MAX_TERMS)
      .optional()
      .describe(
        "create: words that should bring this card up when they appear in conversation (the title always " +
          "counts). Prefer specific names and phrases over common words.",
      ),
    aliases: z
      .array(term)
      .max(MAX_TERMS)
      .optional()
      .describe(
        "create: other names for the same thing (nicknames, abbreviations); they also trigger the card.",
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
      .optional()
      .describe(
        "create: the card's body as ## sections, in order. Usual headings per kind: people who/stance/recent/" +
          "impression; event when/who/what/stance/followup; place where/relation/recent; thing what/usage/recent; " +
          "slang meaning/origin/usage. Other headings are kept. A section named correspondence is private: " +
          "stored and readable, never injected.",
      ),
    name: term.optional().describe('update_recent: the card to change: its title, its key, or "kind/key".'),
    text: sectionText
      .refine(noHeadings, NO_HEADINGS)
      .optional()
      .describe("update_recent: the new text of the recent section (replaces the old text entirely)."),
  };
}

export function readCardShape() {
  return {
    name: term.describe('The card: its title, its key (file name without .md), or "kind/key".'),
    kind: z.string().trim().min(1).max(64).optional().describe("Only look in this kind."),
  };
}

export function listCardsShape(kinds: string[]) {
  return {
    kind: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .describe(`Only cards of this kind (${kinds.join(", ")}); omit for all cards.`),
  };
}

type Shape<T extends Record<string, z.ZodType>> = z.infer<z.ZodObject<T>>;
export type WriteCardArgs = Shape<ReturnType<typeof writeCardShape>>;
export type ReadCardArgs = Shape<ReturnType<typeof readCardShape>>;
export type ListCardsArgs = Shape<ReturnType<typeof listCardsShape>>;
