/**
 * Stage: gate, the words besides the terms that can stop a card that came in on its words (`named`,
 * or `reached` through another card's text): its secondary all/any/not/not_all words and the V3
 * `@@additional_keys` / `@@exclude_keys` (vetoed `secondary`). The rules live in match/ (secondary.ts),
 * beside the token rules they share with the terms; this stage records their verdict. Cards in without
 * their words (always on, asked for by id, still sticky) have no words to weigh here, as SillyTavern's
 * constant and sticky entries skip its key checks.
 */
import { vetoOf } from "../../match/index.ts";
import { type Selected, type Selection, vetoed } from "../selection.ts";
import type { Scan } from "./notice.ts";

/** Every `fired` card a rule stops becomes `vetoed`, with the rule that stopped it (match/ `vetoOf`). */
export async function gate(selection: Selection, scan: Scan): Promise<Selected[]> {
  const out: Selected[] = [];
  for (const entry of selection) {
    const weighed = entry.verdict === "fired" && (entry.via === "named" || entry.via === "reached");
    const veto = weighed ? await vetoOf(entry.card, entry.found, scan.window, scan.options) : null;
    out.push(veto === null ? entry : vetoed(entry, veto));
  }
  return out;
}
