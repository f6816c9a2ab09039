/**
 * Turns given by a person rather than read from a conversation (`try --turns`, `/api/try`'s `turns`):
 * earlier messages, oldest first, each `{role: "user"|"assistant", text}`, then the current message as
 * the last user turn. One parser, so both surfaces accept and refuse the same things; each names the
 * field as its user wrote it and raises its own error code (a flag is usage, a body field bad input).
 */
import { type ErrorCode, LoreError } from "../errors.ts";
import type { Turn } from "./types.ts";

export interface TurnsInput {
  /** How the user wrote the field: `--turns`, `turns`. */
  name: string;
  code: ErrorCode;
}

/**
 * The most earlier turns a replay takes: each user message among them is a recall of its own (history.ts),
 * about a millisecond each, and a request must answer in seconds.
 */
export const MAX_TURNS = 2000;

/** `earlier` (undefined = none) checked, plus `current` as the newest user turn. */
export function parseTurns(earlier: unknown, current: string, input: TurnsInput): Turn[] {
  const list = earlier ?? [];
  if (!Array.isArray(list)) throw new LoreError(input.code, `${input.name} must be a list of {role, text}`);
  if (list.length > MAX_TURNS)
    throw new LoreError(
      input.code,
      `${input.name} holds ${list.length} turns; at most ${MAX_TURNS} are replayed (each user message is a recall)`,
    );
  const turns = list.map((t: unknown, i): Turn => {
    const { role, text } = (t ?? {}) as { role?: unknown; text?: unknown };
    if ((role !== "user" && role !== "assistant") || typeof text !== "string") {
      throw new LoreError(
        input.code,
        `${input.name}[${i}] must be {"role": "user"|"assistant", "text": "…"}`,
      );
    }
    return { role, text };
  });
  return [...turns, { role: "user", text: current }];
}
