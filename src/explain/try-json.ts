// The documented JSON shape of a recall result (`try --json`, `POST /api/try`): snake_case fields.
import { declaredSize, declaredWarning } from "../card/index.ts";
import {
  charsOf,
  contextText,
  declaredCards,
  firedCards,
  injectedChars,
  injectedKeys,
  leftOutCards,
  type Placement,
  placementOf,
  type RecallResult,
} from "../recall/index.ts";

/**
 * The declared half of a recall (always-on cards, cards asked for), which no budget trims: how much it
 * is, and a warning when that alone is large (card/declared.ts).
 */
export function declaredJson(result: RecallResult) {
  const size = declaredSize(declaredCards(result).map((c) => c.text));
  const warning = declaredWarning(size, "The always-on and asked-for cards of this turn");
  return { cards: size.cards, tokens: size.tokens, warning: warning ?? null };
}

/** The `try --json` shape: snake_case, as the README documents it. */
export function recallJson(result: RecallResult) {
  const left = leftOutCards(result);
  return {
    fired: firedCards(result).map((f) => ({
      key: f.card.key,
      kind: f.card.kind,
      ...(f.card.book !== undefined && { book: f.card.book }),
      title: f.card.title,
      score: f.score,
      hits: f.hits,
      chars: charsOf(f) ?? 0,
      in_budget: f.verdict === "chosen",
      verdict: f.verdict,
      reason: f.reason ?? null,
      via: f.via,
      policy: f.policy,
      placement: placementJson(placementOf(f)),
    })),
    injected: injectedKeys(result),
    // Cut by a budget or the surface's cap; a card with nothing public to say was not cut (`empty`).
    truncated: left.filter((f) => f.reason !== "empty").length,
    injected_chars: injectedChars(result),
    left_out: left.map((f) => ({
      key: f.card.key,
      kind: f.card.kind,
      ...(f.card.book !== undefined && { book: f.card.book }),
      title: f.card.title,
      reason: f.reason,
      chars: f.chars,
    })),
    context: contextText(result),
    declared: declaredJson(result),
    lore: result.lore,
    // The books read, when the vault has books (docs/BOOKS.md); absent for a vault of one book.
    ...(result.books && { books: result.books }),
    candidates: result.candidates,
    broken: result.broken,
  };
}

/** Always the three fields, null where the card leaves the choice to the surface. */
function placementJson(p: Placement) {
  return { position: p.position ?? null, depth: p.depth ?? null, role: p.role ?? null };
}
