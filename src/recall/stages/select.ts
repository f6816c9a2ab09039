/**
 * Stage: select, after every card that fires is known (decide.ts): cards already in front of the model
 * are set aside before the budget, so they never take room from new ones and are never injected again.
 * "Already there" is what the caller recorded (`inContext` ids: the gateway's replay records, the
 * hook's ledger) or a block of ours still in the request (`present`: another surface's, such as the
 * hook's in a session that also uses the gateway). A card set aside still counts as fired for its
 * timed effects (timed.ts).
 */

import { cardHeading } from "../../card/heading.ts";
import { earlierHeading } from "../earlier.ts";
import type { Fired, Selected, Selection } from "../selection.ts";
import type { RecallOptions } from "../types.ts";
import { cardVersion } from "../version.ts";

export function select(
  selection: Selection,
  options: Pick<RecallOptions, "inContext" | "present">,
): Selected[] {
  return selection.map((entry) => {
    if (entry.verdict !== "fired") return entry;
    if (options.inContext?.has(entry.id)) return { ...entry, verdict: "in_context", reason: "recorded" };
    if (isPresent(entry, options.present)) return { ...entry, verdict: "in_context", reason: "present" };
    return entry;
  });
}

/** The card's heading line, whole, inside one of the blocks already in the request. */
function isPresent(entry: Fired, present: readonly string[] | undefined): boolean {
  if (!present || present.length === 0) return false;
  const heading = entry.earlier
    ? earlierHeading(entry.card, entry.earlier.at)
    : cardHeading(entry.card.title, entry.card.kind);
  const line = `\n${heading}\n`;
  return present.some((block) => `\n${block}\n`.includes(line));
}

/**
 * After rendering: a card about to go in whose public text is already in the request (`quotedIn`),
 * because the client put it there itself (SillyTavern with the same book in its World Info), is set
 * aside as `quoted`. Every line of its text must be in one of the request's texts, and the text long
 * enough that it cannot be there by chance; the longest line is looked for first, so a request without
 * it costs one search per card. So is a card whose text, heading and all, is a card's that goes in
 * before it: the same entry in two books (a book imported twice, once into the vault's own cards) was
 * sent twice.
 */
export function quoted(selection: Selection, quotedIn: readonly string[] | undefined): Selection {
  const going = new Set<string>();
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || entry.text === undefined) return entry;
    if (going.has(entry.text)) return { ...entry, verdict: "in_context", reason: "quoted" };
    going.add(entry.text);
    if (!quotedIn || quotedIn.length === 0) return entry;
    const lines = bodyLines(entry.text);
    if (lines.reduce((n, l) => n + l.length, 0) < QUOTED_MIN_CHARS) return entry;
    const longest = lines.reduce((a, b) => (b.length > a.length ? b : a));
    const there = quotedIn.some((t) => t.includes(longest) && lines.every((l) => t.includes(l)));
    return there ? { ...entry, verdict: "in_context", reason: "quoted" } : entry;
  });
}

/** Shorter public text than this may be in a request by chance ("A trader."): it never counts as quoted. */
const QUOTED_MIN_CHARS = 24;

/** A rendered card's own lines: without its heading and the "see also" lines render adds. */
function bodyLines(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("see also: "));
}

/**
 * After rendering: a card set aside as recorded in context whose text is no longer what the
 * conversation last sent (`sent`: id → its version, version.ts) comes back as fired, marked `edited`, so the new
 * version is sent once and then settles (the surface records the new hash). A card with no hash on
 * record (sent before hashes were kept) is taken as unchanged: an upgrade must not resend every card.
 */
export function resend(selection: Selection, sent: ReadonlyMap<string, string> | undefined): Selected[] {
  return selection.map((entry) => {
    if (!sent || entry.verdict !== "in_context" || entry.reason !== "recorded") return entry;
    const before = sent.get(entry.id);
    if (before === undefined || before === cardVersion(entry.text ?? "")) return entry;
    const { reason: _, ...rest } = entry;
    return { ...rest, verdict: "fired", edited: true } satisfies Fired;
  });
}
