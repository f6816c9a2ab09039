/**
 * A card as it was at an earlier version, beside the card as it is now (the writing app's
 * `use(node, snapshot=id)`): asked for by name and history version or time (`Alice@12`,
 * `Alice@2026-06-01`; the gateway's `X-Lorecards-Earlier`, `explain --earlier`), read from the vault's
 * history (vault/history.ts: the card's text after its newest version up to that point) and sent as a
 * card of its own, headed `### Alice [people, as of 2026-06-01 14:30 UTC]` so it is never taken for
 * the card as it is now. It is declared: never counted against the budget, it rides the stable tier
 * (first in its block) while the stable block is being made, and goes with the newest message after.
 * Its id is the card's with the version (`people/Alice@12`), which is how a conversation remembers it.
 */
import { publicTextOf } from "../card/index.ts";
import { rulesOf } from "../card/rules.ts";
import type { CardMeta } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { type AsOfPoint, cardTextAt, parseAsOf, type Vault } from "../vault/index.ts";
import { type Compiled, resolveRef } from "./_compiled.ts";
import { expandMacros, type Names } from "./macros.ts";
import type { Fired } from "./selection.ts";
import { idOf } from "./stages/notice.ts";
import { codePointsOf } from "./stages/render.ts";

/** One card asked for as it was: its name, and a version number or a time. */
export interface EarlierAsk {
  name: string;
  point: AsOfPoint;
}

/** A card's state at an earlier point, as a recall places it. */
export interface EarlierCard {
  card: CardMeta;
  /** The history version its text is from. */
  version: number;
  /** When that version was written (ms). */
  at: number;
  /** The card file's text then. */
  text: string;
}

/** `Alice@12, the Ledger@2026-06-01`: the asks of one line; a part without `@` is a usage error. */
export function earlierIn(line: string | null | undefined, code: "usage" | "invalid_input"): EarlierAsk[] {
  const out: EarlierAsk[] = [];
  for (const part of (line ?? "").split(",").map((p) => p.trim())) {
    if (part === "") continue;
    const at = part.lastIndexOf("@");
    const name = part.slice(0, Math.max(0, at)).trim();
    if (at <= 0 || name === "")
      throw new LoreError(
        code,
        `an earlier card is Name@version or Name@date (Alice@12, Alice@2026-06-01), not "${part}"`,
      );
    out.push({ name, point: parseAsOf(part.slice(at + 1), code, `the point after "${name}@"`) });
  }
  return out;
}

/**
 * Each ask's card as it was; `not_found` names a card or a version that is not there, unless `warn`
 * is given: then that ask is said through it and passed over (a surface that fails open).
 */
export function earlierCards(
  vault: Vault,
  compiled: Compiled,
  asks: readonly EarlierAsk[],
  warn?: (line: string) => void,
): EarlierCard[] {
  const out: EarlierCard[] = [];
  for (const ask of asks) {
    try {
      const found = earlierCard(vault, compiled, ask);
      if (!out.some((e) => idOf(e.card) === idOf(found.card) && e.version === found.version)) out.push(found);
    } catch (err) {
      if (!warn || !(err instanceof LoreError)) throw err;
      warn(`lorecards: ${err.message}; passed over`);
    }
  }
  return out;
}

function earlierCard(vault: Vault, compiled: Compiled, ask: EarlierAsk): EarlierCard {
  const card = resolveRef(ask.name, compiled);
  if (!card) throw new LoreError("not_found", `earlier: no card named "${ask.name}"`);
  const then = cardTextAt(vault, card.kind, card.key, ask.point);
  if (then === null) {
    const when =
      "version" in ask.point ? `version ${ask.point.version}` : new Date(ask.point.at).toISOString();
    throw new LoreError(
      "not_found",
      `earlier: "${ask.name}" has no version at or before ${when} (lorecards history)`,
    );
  }
  return { card, ...then };
}

/** The heading of an earlier state: the card's, with the time, so it is never the card's own line. */
export function earlierHeading(card: Pick<CardMeta, "title" | "kind">, at: number): string {
  const when = new Date(at).toISOString().slice(0, 16).replace("T", " ");
  return `### ${card.title} [${card.kind}, as of ${when} UTC]`;
}

/** The id a conversation remembers an earlier state by. */
export function earlierId(card: CardMeta, version: number): string {
  return `${idOf(card)}@${version}`;
}

/** Each earlier state as a fired, rendered entry: asked for, declared, its own text and heading. */
export function earlierEntries(
  cards: readonly EarlierCard[],
  compiled: Compiled,
  macros: { names?: Names; conversation?: string },
): Fired[] {
  return cards
    .filter((e) => rulesOf(e.card).policy !== "never")
    .map((e) => {
      const body = expandMacros(
        publicTextOf(e.text, compiled.kinds),
        macros.names,
        macros.conversation,
      ).trim();
      const text = `${[earlierHeading(e.card, e.at), ...(body === "" ? [] : [body])].join("\n")}\n`;
      return {
        id: earlierId(e.card, e.version),
        card: e.card,
        hits: [],
        score: 0,
        found: new Set<number>(),
        trigger: "",
        verdict: "fired",
        via: "explicit",
        policy: rulesOf(e.card).policy,
        earlier: { version: e.version, at: e.at },
        text,
        chars: codePointsOf(text),
        placement: { position: null, depth: null, role: null },
        edited: false,
        hint: "stable",
      };
    });
}
