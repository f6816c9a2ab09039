/**
 * Style memory's health score: is there enough learned to brief a model on (readiness), are the
 * habits in the brief going stale (drift), would a model told all of them overdo it (over-imitation),
 * and should a caller holding a brief fetch it again. Pure: habits, revisions and the settings' TTL
 * in, a score of 0–100 with each part's level, counts and one sentence of advice out.
 *
 *   readiness       active habits a brief can name (not measured voice); ready from 3, warming from 1
 *   drift           share of active, unpinned habits unseen for more than half the inactive TTL
 *                   (90 days by default): low under 25%, medium under 50%, high from there
 *   over-imitation  strong habits a model could copy (expressions, emoji and punctuation): medium
 *                   from 2, high from 4, or when half of 8 or more are strong
 *   refresh         the caller's revision (`since`) is not the current one; without one, the brief
 *                   changed since it was last handed out, or drift is high
 *
 * score = 100 × readiness × (1 − drift share ÷ 2) × (1, 0.8 or 0.6 for over-imitation low to high).
 */
import type { Habit, HabitKind } from "./types.ts";

export type Level = "low" | "medium" | "high";

export interface StyleScore {
  /** 0–100: ready, fresh and light is 100. */
  score: number;
  readiness: { level: "empty" | "warming" | "ready"; active: number; candidates: number; needed: number };
  drift: { level: Level; fading: number; active: number; archived: number; fadingAfterDays: number };
  overImitation: { level: Level; strong: number; imitable: number };
  brief: { revision: number; since?: number; refreshRecommended: boolean };
  /** One sentence per part that is not as it should be, saying what to do. */
  advice: string[];
}

/** Active habits a brief needs to be worth sending. */
export const READY_AT = 3;
const IMITABLE: ReadonlySet<HabitKind> = new Set([
  "slang",
  "abbreviation",
  "catchphrase",
  "laughter",
  "dialect",
  "idiolect",
  "emoji",
  "emoticon",
  "punctuation",
]);
const DAY = 86_400_000;

export interface ScoreInput {
  habits: readonly Habit[];
  now: number;
  /** The inactive TTL in force (settings.ts), in days. */
  inactiveTtlDays: number;
  revision: number;
  /** The revision last handed out in full or as a delta (0: never). */
  served: number;
  /** The revision the caller holds, when it says. */
  since?: number;
}

function driftLevel(share: number): Level {
  return share >= 0.5 ? "high" : share >= 0.25 ? "medium" : "low";
}

export function styleScore(input: ScoreInput): StyleScore {
  const { habits, now } = input;
  const active = habits.filter((h) => h.state === "active" && h.kind !== "voice");
  const candidates = habits.filter((h) => h.state === "candidate").length;
  const readinessLevel = active.length >= READY_AT ? "ready" : active.length > 0 ? "warming" : "empty";

  const fadingAfterDays = Math.max(1, Math.floor(input.inactiveTtlDays / 2));
  const fading = active.filter((h) => !h.pinned && now - h.lastSeen > fadingAfterDays * DAY).length;
  const share = active.length === 0 ? 0 : fading / active.length;

  const imitable = active.filter((h) => IMITABLE.has(h.kind));
  const strong = imitable.filter((h) => h.strength === "strong").length;
  const over: Level =
    strong >= 4 || (imitable.length >= 8 && strong * 2 >= imitable.length)
      ? "high"
      : strong >= 2
        ? "medium"
        : "low";

  const drift = driftLevel(share);
  const since = input.since;
  const refreshRecommended =
    input.revision > 0 &&
    (since !== undefined ? since !== input.revision : input.served !== input.revision || drift === "high");

  const readiness = Math.min(1, active.length / READY_AT);
  const damp = over === "high" ? 0.6 : over === "medium" ? 0.8 : 1;
  const advice: string[] = [];
  if (readinessLevel !== "ready")
    advice.push(
      `${active.length} of ${READY_AT} active habits: the brief says little until the person has talked in a few more conversations`,
    );
  if (drift !== "low")
    advice.push(
      `${fading} of ${active.length} active habits unseen for over ${fadingAfterDays} days: the brief may no longer sound like the person (review, pin what still holds)`,
    );
  if (over !== "low")
    advice.push(
      `${strong} strong habits a model could copy: keep the touch light (one per reply), or unpin or forget some`,
    );
  if (refreshRecommended) advice.push(`fetch the brief again: revision ${input.revision} is current`);
  return {
    score: Math.round(100 * readiness * (1 - share / 2) * damp),
    readiness: { level: readinessLevel, active: active.length, candidates, needed: READY_AT },
    drift: {
      level: drift,
      fading,
      active: active.length,
      archived: habits.filter((h) => h.state === "archived").length,
      fadingAfterDays,
    },
    overImitation: { level: over, strong, imitable: imitable.length },
    brief: { revision: input.revision, ...(since === undefined ? {} : { since }), refreshRecommended },
    advice,
  };
}

/** The score in a few lines for a person. */
export function describeScore(s: StyleScore): string {
  const lines = [
    `Style memory health: ${s.score}/100`,
    `  readiness       ${s.readiness.level} (${s.readiness.active} active, ${s.readiness.candidates} candidates)`,
    `  drift risk      ${s.drift.level} (${s.drift.fading} of ${s.drift.active} fading)`,
    `  over-imitation  ${s.overImitation.level} (${s.overImitation.strong} strong of ${s.overImitation.imitable})`,
    `  brief           revision ${s.brief.revision}${s.brief.refreshRecommended ? ", refresh recommended" : ", up to date"}`,
  ];
  if (s.advice.length > 0) lines.push("", ...s.advice.map((a) => `- ${a}`));
  return lines.join("\n");
}
