/**
 * A mark beside style.db (`style-unhinted`) that says the store held no phrase agents hinted at when a
 * transaction last looked. A hook reads a prompt for those phrases (sightings.ts `learned`), which takes
 * the store; with the mark it knows there are none and reads the prompt without opening it (note.ts),
 * and without it, it learns at once, whose transaction makes the mark when it finds no hint. The
 * transaction that records a hint removes the mark before it commits; a restore moves it aside with
 * style.db. A crash can so leave the mark missing (a prompt learned at once), never a hint with it.
 */
import fs from "node:fs";
import { stateIn } from "../vault/index.ts";
import type { Queries } from "./_db.ts";
import { STYLE_UNHINTED } from "./files.ts";

function markPath(vaultRoot: string): string {
  return stateIn(vaultRoot, STYLE_UNHINTED);
}

export function mayHoldHints(vaultRoot: string): boolean {
  return !fs.existsSync(markPath(vaultRoot));
}

/** In the transaction that records a hint, before it does. */
export function markHinted(vaultRoot: string): void {
  fs.rmSync(markPath(vaultRoot), { force: true });
}

/** In a transaction that learns from messages, before it does: the mark is made when there is no hint. */
export function settleHinted(vaultRoot: string, q: Queries): void {
  const none = q.bySource.all("hint").length === 0;
  if (none && mayHoldHints(vaultRoot)) fs.writeFileSync(markPath(vaultRoot), "");
  else if (!none) markHinted(vaultRoot);
}
