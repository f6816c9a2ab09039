/**
 * A mark beside style.db (`style-hinted`) that says the store may hold phrases agents hinted at. A
 * hook reads a prompt for them (sightings.ts `learned`), which takes the store; without the mark it
 * knows there are none and reads the prompt without opening it (note.ts). The mark is made in the
 * transaction that records a hint, before it commits, and removed only in a transaction that finds
 * none at its start, so a crash can leave a mark too many (the hook then learns at once, as before),
 * never a hint without its mark.
 */
import fs from "node:fs";
import { stateIn } from "../vault/index.ts";
import type { Queries } from "./_db.ts";

function markPath(vaultRoot: string): string {
  return stateIn(vaultRoot, "style-hinted");
}

export function mayHoldHints(vaultRoot: string): boolean {
  return fs.existsSync(markPath(vaultRoot));
}

/** In the transaction that records a hint. */
export function markHinted(vaultRoot: string): void {
  if (!mayHoldHints(vaultRoot)) fs.writeFileSync(markPath(vaultRoot), "");
}

/** In a transaction that learns no hinted phrase: the mark goes once the store holds none. */
export function settleHinted(vaultRoot: string, q: Queries): void {
  if (mayHoldHints(vaultRoot) && q.bySource.all("hint").length === 0)
    fs.rmSync(markPath(vaultRoot), { force: true });
}
