/**
 * What a reply's context is about, from the message it answers: legal, medical, serious (loss,
 * crisis, a job or money gone), formal (a letter, a CV, an official document) or technical (code,
 * errors). A few words in English and Chinese each (context-words.yaml), found in one pass like
 * the dictionary's; when none of legal, medical, serious or formal is found the context is casual.
 * It is a hint for leaving slang out of the wrong reply, not a classifier: one word is enough, and a
 * miss only means the habits stay in.
 */
import contextWords from "./context-words.yaml";
import { styleFold } from "./fold.ts";
import { TermScanner } from "./scanner.ts";
import type { ContextTag } from "./types.ts";

/** Tag → words, in `context-words.yaml`. */
const WORDS = contextWords as Record<Exclude<ContextTag, "casual">, string[]>;

const SERIOUS: ContextTag[] = ["legal", "medical", "serious", "formal"];

let scanner: TermScanner<ContextTag> | undefined;

function contextScanner(): TermScanner<ContextTag> {
  if (scanner === undefined) {
    const terms = Object.entries(WORDS).flatMap(([tag, words]) =>
      words.map((term) => ({ term: String(term), value: tag as ContextTag })),
    );
    scanner = new TermScanner(terms);
  }
  return scanner;
}

/** The tags of `text`, in CONTEXT_TAGS order; "casual" when nothing weightier is found. */
export function contextTags(text: string): ContextTag[] {
  const found = new Set(
    contextScanner()
      .scan(styleFold(text))
      .map((h) => h.value),
  );
  if (text.includes("```")) found.add("technical");
  if (!SERIOUS.some((t) => found.has(t))) found.add("casual");
  const order: ContextTag[] = ["casual", "technical", "formal", "serious", "legal", "medical"];
  return order.filter((t) => found.has(t));
}
