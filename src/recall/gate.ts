/**
 * Stage 2, gate: the conditions besides the terms that can stop a hit card — `inject: false` and the
 * secondary all/any/not words. The rules themselves live in match/ (secondary.ts), beside the token
 * rules they share with the terms; this stage records their verdict. Later: decorators, per-card
 * policy and timed effects, from a read-only state snapshot the caller passes in.
 */
import { vetoOf } from "../match/index.ts";
import type { Scan } from "./notice.ts";
import type { Selected, Selection } from "./types.ts";

/** Every `fired` card a rule stops becomes `vetoed`, with the rule as its reason. */
export async function gate(selection: Selection, scan: Scan): Promise<Selected[]> {
  const out: Selected[] = [];
  for (const entry of selection) {
    const veto =
      entry.verdict === "fired" ? await vetoOf(entry.card, entry.found, scan.window, scan.options) : null;
    out.push(veto === null ? entry : { ...entry, verdict: "vetoed", reason: veto });
  }
  return out;
}
