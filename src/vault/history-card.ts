/**
 * Which card a name means for `history` and `revert`: the live card it names (the rule of lookup.ts),
 * else a card history knows by that key, `kind/key` or key alone, so an archived or deleted card's
 * versions can still be listed. A key history knows under several kinds needs its kind.
 */
import type { Card } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { findCard } from "./cards.ts";
import { historyNames } from "./history.ts";
import { cleanName, splitName } from "./lookup.ts";
import type { Vault } from "./paths.ts";

export interface HistoryCard {
  kind: string;
  key: string;
  /** The live card, when there is one. */
  card?: Card;
}

export function findHistoryCard(vault: Vault, given: string): HistoryCard {
  try {
    const card = findCard(vault, given);
    return { kind: card.kind, key: card.key, card };
  } catch (err) {
    if (!(err instanceof LoreError) || err.code !== "not_found") throw err;
    const { prefix, key } = splitName(cleanName(given));
    const named = vault.kinds.kinds.find(
      (k) => prefix !== undefined && (k.name === prefix || k.dir === prefix),
    );
    const wanted = named ? key : cleanName(given);
    const known = historyNames(vault, wanted).filter((h) => named === undefined || h.kind === named.name);
    const exact = known.filter((h) => h.key === wanted);
    const found = exact.length > 0 ? exact : known;
    if (found.length === 1) return { kind: found[0]!.kind, key: found[0]!.key };
    if (found.length > 1) {
      const names = found.map((h) => `${h.kind}/${h.key}`).join(", ");
      throw new LoreError(
        "usage",
        `"${given}" is in the history of several cards (${names}): name one as kind/key`,
      );
    }
    throw err;
  }
}
