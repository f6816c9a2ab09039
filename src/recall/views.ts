/**
 * Every view of a recall, derived from its selection and blocks in one place (a stored copy of a
 * derived view drifts): the cards that fired, went in or were left out, what was injected and how
 * much, and the text of the blocks. Surfaces, `try --json` and the context door read a recall only
 * through these.
 */
import { rulesOf } from "../card/rules.ts";
import type { Chosen, InContext, LeftOut, Placement, Selected } from "./selection.ts";
import { isDeclared } from "./selection.ts";
import { lineChars, listedCards } from "./stages/index-block.ts";
import type { RecallResult } from "./types.ts";

type Of = Pick<RecallResult, "selection">;
type Sent = Pick<RecallResult, "selection" | "blocks" | "index">;

/** Every card that fired (not vetoed), in order (closest to the person's words first). */
export function firedCards(result: Of): Exclude<Selected, { verdict: "vetoed" }>[] {
  return result.selection.filter((e) => e.verdict !== "vetoed");
}

/** The cards that go in, in order. */
export function chosenCards(result: Of): Chosen[] {
  return result.selection.filter((e): e is Chosen => e.verdict === "chosen");
}

/** The chosen cards of the declared half (always-on, asked for): sent whole, never counted (budget.ts). */
export function declaredCards(result: Of): Chosen[] {
  return chosenCards(result).filter(isDeclared);
}

/** Fired cards left out by a budget, the surface cap, or for having nothing public to say. */
export function leftOutCards(result: Of): LeftOut[] {
  return result.selection.filter((e): e is LeftOut => e.verdict === "left_out");
}

/** Fired cards set aside as already in front of the model. */
export function inContextCards(result: Of): InContext[] {
  return result.selection.filter((e): e is InContext => e.verdict === "in_context");
}

/** Keys of the cards that go in, in order. */
export function injectedKeys(result: Of): string[] {
  return chosenCards(result).map((c) => c.card.key);
}

/** Ids (`kind/key`) of the same cards. */
export function injectedIds(result: Of): string[] {
  return chosenCards(result).map((c) => c.id);
}

/** Characters of what goes in: each card's text, or in index mode its line of the index. */
export function injectedChars(result: Sent): number {
  const listed = result.index ? new Set(listedCards(result)) : undefined;
  return chosenCards(result).reduce((n, c) => n + (listed?.has(c.id) ? lineChars(c) : c.chars), 0);
}

/** The blocks' text joined: framing + card blocks (or the index); "" when nothing goes in. */
export function contextText(result: Pick<RecallResult, "blocks">): string {
  return result.blocks.map((b) => b.text).join("\n");
}

/** What a conversation records of each card that went in: its id and version. */
export function sentCards(result: Of): { id: string; version: string }[] {
  return chosenCards(result).map((c) => ({ id: c.id, version: c.version }));
}

/** Characters of a card's rendered text; undefined for a card never rendered (vetoed). */
export function charsOf(entry: Selected): number | undefined {
  return entry.verdict === "vetoed" ? undefined : entry.chars;
}

/** Where a card goes: as recorded by render, else its own rules' placement. */
export function placementOf(entry: Selected): Placement {
  return (entry.verdict === "vetoed" ? undefined : entry.placement) ?? rulesOf(entry.card).placement;
}

/** Sent again because its text changed since the conversation last sent it. */
export function isEdited(entry: Selected): boolean {
  return entry.verdict !== "vetoed" && entry.edited === true;
}
