/**
 * The small value readings every mapping table shares: which numbers and booleans a source field may
 * hold for a setting to count as stated, and the two numbered vocabularies SillyTavern uses for
 * placement (World Info position 0–7 = card/rules.ts POSITIONS 0–7) and for the prompt role.
 */

import { POSITIONS } from "../card/rules.ts";
import type { PromptRole } from "../card/types.ts";

export function bool(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A whole number ≥ 0, as a count of messages or turns. */
export function whole(value: unknown): number | undefined {
  const n = num(value);
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** A timed effect (sticky, cooldown, delay): 0 and null both mean off, so only > 0 is stated. */
export function timed(value: unknown): number | undefined {
  const n = whole(value);
  return n !== undefined && n > 0 ? n : undefined;
}

/** A setting that may be true only: false is the default, so it states nothing. */
export function flag(value: unknown): true | undefined {
  return value === true ? true : undefined;
}

/** SillyTavern's position number → its POSITIONS name (0–7); anything else is not stated. */
export function positionName(value: unknown): string | undefined {
  const n = whole(value);
  return n !== undefined && n < 8 ? POSITIONS[n] : undefined;
}

/** A POSITIONS name → SillyTavern's number, for the eight it has; undefined for the spec's four. */
export function positionNumber(name: string | undefined): number | undefined {
  const i = name === undefined ? -1 : POSITIONS.indexOf(name as (typeof POSITIONS)[number]);
  return i >= 0 && i < 8 ? i : undefined;
}

export const AT_DEPTH = "at_depth";

const ROLES: PromptRole[] = ["system", "user", "assistant"];

export function roleName(value: unknown): PromptRole | undefined {
  const n = whole(value);
  return n !== undefined ? ROLES[n] : undefined;
}

export function roleNumber(role: PromptRole | undefined): number | null {
  return role === undefined ? null : ROLES.indexOf(role);
}

/** An inclusion group string ("a, b") as its names, split as SillyTavern splits it. */
export function groupNames(value: unknown): string[] | undefined {
  if (typeof value !== "string") return undefined;
  const names = value
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return names.length > 0 ? [...new Set(names)] : undefined;
}
