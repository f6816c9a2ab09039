// Under the try box, why each card is (or is not) in front of the model (`POST /api/explain`, the
// context door's answer), one line per card in plain words: how it came up, where it goes (with the tier
// hint it carries), and why not when it is not sent; the line `lorecards explain` prints is its tooltip.
import type { Explanation } from "../api/types.ts";
import type { TryAs } from "./_books.ts";
import { api } from "./_client.ts";
import { el, formatTime } from "./_dom.ts";
import {
  POLICY_WORDS,
  POSITION_WORDS,
  REASON_WORDS,
  TIER_WORDS,
  VERDICT_WORDS,
  VIA_WORDS,
} from "./_words.ts";

type Explained = Explanation["cards"][number];

/** A tier hint (the card's `tier:` or the request's): what it asks, and whether it was kept. */
function hintWords(hint: Explained["why"]["tier_hint"]): string {
  if (!hint) return "";
  const asked = TIER_WORDS[hint.asked]?.label ?? hint.asked;
  return hint.kept
    ? ` (its tier hint asks “${asked}”)`
    : ` (its tier hint asks “${asked}”; an edit or a place of its own wins)`;
}

/**
 * Why one card is or is not in, in plain words: how it came up (its words and where, always on, asked
 * for, reached), where it would go, and why not when it is not sent. The server's own line, in the terms
 * the docs use, is its tooltip.
 */
function whyWords(c: Explained): string {
  const parts: string[] = [];
  if (c.earlier)
    parts.push(
      `as of ${formatTime(c.earlier.at)} (version ${c.earlier.version}), beside the card as it is now`,
    );
  else if (c.via === "reached" && c.why.reached_from) {
    // A reached card's terms were found in another card's text, not in the conversation.
    const from = c.why.reached_from.split("/").slice(1).join("/");
    parts.push(
      `named in ${from}'s text${c.hits.length > 0 ? ` (${c.hits.map((h) => `“${h.term}”`).join(", ")})` : ""}`,
    );
  } else if (c.hits.length > 0) {
    const where = (m: number) => (m === 0 ? "this message" : `${m} message${m === 1 ? "" : "s"} back`);
    parts.push(`on ${c.hits.map((h) => `“${h.term}” (${where(h.messages[0] ?? 0)})`).join(", ")}`);
  } else if (c.via) parts.push(VIA_WORDS[c.via] ?? c.via);
  // An always-on card came in by being always on: its policy would say it twice.
  const policy = POLICY_WORDS[c.policy]?.short ?? c.policy;
  if (c.policy !== "automatic" && !parts.includes(policy)) parts.push(policy);
  const place = c.placement.position;
  if (c.verdict === "chosen")
    parts.push(
      (place ? (POSITION_WORDS[place] ?? place).toLowerCase() : (TIER_WORDS[c.tier]?.label ?? c.tier)) +
        hintWords(c.why.tier_hint),
    );
  if (c.reason) {
    const b = c.why.budget;
    const took = b?.taken_by.length
      ? `: ${b.taken_by.map((t) => t.id.split("/").slice(1).join("/")).join(", ")} took ${b.spent}${b.limit === null ? "" : ` of ${b.limit}`} characters`
      : "";
    parts.push(`${REASON_WORDS[c.reason] ?? c.reason}${c.reason === "budget" ? took : ""}`);
  }
  if (c.chars !== null) parts.push(`${c.chars.toLocaleString()} characters`);
  return parts.join("; ");
}

/** Why each card of a try is or is not in: one line per card, under the try box. */
export async function explainTry(box: HTMLElement, text: string, as: TryAs = {}): Promise<void> {
  const answer = await api<Explanation>("POST", "/api/explain", { text, ...as });
  if (answer.cards.length === 0) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  const rows = answer.cards.map((c) =>
    el(
      "li",
      { class: `why-line ${c.verdict}`, "data-key": c.key, title: c.line },
      el("span", { class: "tag" }, VERDICT_WORDS[c.verdict] ?? c.verdict),
      el("span", {}, el("b", {}, c.title), ` ${whyWords(c)}`),
    ),
  );
  box.replaceChildren(
    el(
      "details",
      { class: "why", open: true },
      el("summary", {}, "Why"),
      el("ol", { class: "why-list" }, rows),
    ),
  );
  box.hidden = false;
}
