/**
 * Stage: select, after every card that fires is known (decide.ts): cards already in front of the model
 * are set aside before the budget, so they never take room from new ones and are never injected again.
 * "Already there" is what the caller recorded (`inContext` ids: the gateway's replay records, the
 * hook's ledger) or a block of ours still in the request (`present`: another surface's, such as the
 * hook's in a session that also uses the gateway). A card set aside still counts as fired for its
 * timed effects (timed.ts).
 */
import { cardHeading } from "./render.ts";
import type { RecallOptions, Selected, Selection } from "./types.ts";

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
function isPresent(entry: Selected, present: readonly string[] | undefined): boolean {
  if (!present || present.length === 0) return false;
  const line = `\n${cardHeading(entry.card.title, entry.card.kind)}\n`;
  return present.some((block) => `\n${block}\n`.includes(line));
}
