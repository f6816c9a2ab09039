/**
 * The lore-switch rules of the Store contract (`setLore`), written once for every backend:
 * - a switch is kept per session id (cut to `MAX_ID_CHARS`, as a recall's ids), one per session: a
 *   second replaces the first, and null forgets it;
 * - each switch set drops the longest-set beyond `loreSwitches` (by time, then session);
 * - a conversation carries its own id and, when that id is a surface's or a client's name and a colon
 *   before the rest (`hook:<id>`, `claude-code:<id>`), that rest: so one Claude Code session id reaches
 *   the hook's conversation and the gateway's alike, while a whole conversation id reaches that one
 *   conversation; the switch of its own id wins over the bare session's.
 * Pure: a backend reads what these need and applies what they return.
 */

import { LORE_SWITCHES, type LoreSwitch } from "../defaults.ts";
import { MAX_ID_CHARS } from "./_recall-rules.ts";

/** A surface's or client's name in front of the id it was given (`hook:`, `claude-code:`). */
const NAMED = /^[a-z][a-z0-9-]*:/;

/** The sessions a conversation carries, its own id first (the switch of the first one set applies). */
export function sessionsOf(conversation: string): string[] {
  const named = NAMED.exec(conversation)?.[0];
  const rest = named === undefined ? "" : conversation.slice(named.length);
  const ids = rest === "" ? [conversation] : [conversation, rest];
  return ids.map((id) => id.slice(0, MAX_ID_CHARS));
}

/** The session id as it is kept. */
export function normalSession(session: string): string {
  return session.slice(0, MAX_ID_CHARS);
}

/** A stored switch read back: one of the three, else none (a row another binary wrote). */
export function loreOf(stored: string | null | undefined): LoreSwitch | undefined {
  return (LORE_SWITCHES as readonly string[]).includes(stored ?? "") ? (stored as LoreSwitch) : undefined;
}

/** Which switch the cap drops first: the longest set, then the smallest session id. */
export function byLongestSet(a: { at: number; session: string }, b: { at: number; session: string }): number {
  return a.at - b.at || (a.session < b.session ? -1 : a.session > b.session ? 1 : 0);
}
