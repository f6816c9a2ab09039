/**
 * One-time initialisation: a style store that has learned nothing yet may be seeded once, by a host
 * that looked at no more than 12 of its own sessions of the last 30 days, with aggregates only:
 *
 *   { "action": "submit", "sessions": 8, "days": 21,
 *     "voice": { "language": "english", "length": "short", "case": "lowercase" },
 *     "response_preferences": { "length": "short", "structure": "conclusion_first", "tone": "warm", "emoji": "welcome" },
 *     "collaboration_preferences": ["plan, then implement, then verify"],
 *     "expressions": [{ "signal": "ship it", "kind": "catchphrase" }] }
 *
 * or `{ "action": "skip" }` when the host has no history to offer. Either choice is kept: it is asked
 * for once. Anything that is not an aggregate is refused whole, naming the field: raw messages,
 * session titles, names and other identity fields, examples, and any field not listed here. Voice
 * and preferences count as seen in `sessions` conversations (so two sessions or more make them
 * active); each expression is one low-weight sighting, a candidate behind the usual gate. Pure: the
 * submission in, what to record (or why not) out; the book records it.
 */
import { checkPreference } from "./profile.ts";
import type { HabitKind } from "./types.ts";

export const INIT_MAX_SESSIONS = 12;
export const INIT_MAX_DAYS = 30;
export const INIT_MAX_EXPRESSIONS = 3;
export const INIT_MAX_PREFERENCES = 8;

/** The voice traits a host may report, as sightings.ts measures them. */
const VOICE: Record<string, readonly string[]> = {
  language: ["chinese", "english", "mixed"],
  length: ["short", "medium", "long"],
  case: ["lowercase", "capitals"],
};

/** The response preferences a host may report, each value the preference it stands for. */
export const RESPONSE_PREFERENCES: Record<string, Record<string, string>> = {
  length: { short: "prefers short, to-the-point replies", detailed: "prefers detailed, thorough replies" },
  structure: {
    conclusion_first: "prefers the conclusion before the details",
    step_by_step: "prefers step-by-step answers",
  },
  tone: {
    warm: "prefers a warm tone",
    neutral: "prefers a neutral, matter-of-fact tone",
    playful: "prefers a playful tone",
  },
  emoji: { avoid: "prefers replies without emoji", welcome: "welcomes emoji in replies" },
};

const FIELDS = [
  "action",
  "sessions",
  "days",
  "voice",
  "response_preferences",
  "collaboration_preferences",
  "expressions",
];

/** Fields that say what was refused and why, beyond "not a field". */
const REFUSED: [RegExp, string][] = [
  [
    /^(messages?|raw|text|transcripts?|history|conversations?|examples?|quotes?)$/i,
    "raw messages are never kept",
  ],
  [/^(titles?|session_?titles?|subjects?)$/i, "session titles are not style"],
  [
    /^(name|names|user|user_?name|nickname|address(es)?|identity|email|phone|location|age|gender)$/i,
    "identity and address are never taken from a host",
  ],
];

export type InitSubmission =
  | { action: "skip" }
  | {
      action: "submit";
      sessions: number;
      days: number;
      voice: string[];
      preferences: string[];
      expressions: { signal: string; kind?: HabitKind }[];
    };

function refusal(field: string): string {
  const why = REFUSED.find(([re]) => re.test(field.split(".").pop() ?? field));
  return why ? `"${field}" is refused: ${why[1]}` : `"${field}" is not a field of the initialisation`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function count(value: unknown, field: string, max: number): number | string {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max)
    return `${field} must be a whole number from 1 to ${max}`;
  return value;
}

/** The submission as the book records it, or why it is refused (one sentence naming the field). */
export function readInit(raw: unknown): InitSubmission | string {
  if (!isObject(raw)) return "the initialisation is an object: {action: submit | skip, …}";
  for (const key of Object.keys(raw)) if (!FIELDS.includes(key)) return refusal(key);
  if (raw.action === "skip") {
    const extra = Object.keys(raw).find((k) => k !== "action");
    return extra ? `a skip carries nothing else ("${extra}")` : { action: "skip" };
  }
  if (raw.action !== "submit") return 'action must be "submit" or "skip"';
  const sessions = count(raw.sessions, "sessions", INIT_MAX_SESSIONS);
  if (typeof sessions === "string") return `${sessions} (the sessions looked at)`;
  const days = count(raw.days, "days", INIT_MAX_DAYS);
  if (typeof days === "string") return `${days} (how far back the sessions go)`;
  const voice = readVoice(raw.voice);
  if (typeof voice === "string") return voice;
  const preferences = readPreferences(raw.response_preferences, raw.collaboration_preferences);
  if (typeof preferences === "string") return preferences;
  const expressions = readExpressions(raw.expressions);
  if (typeof expressions === "string") return expressions;
  if (voice.length + preferences.length + expressions.length === 0)
    return 'nothing to record: send voice, preferences or expressions, or action "skip"';
  return { action: "submit", sessions, days, voice, preferences, expressions };
}

function readVoice(value: unknown): string[] | string {
  if (value === undefined) return [];
  if (!isObject(value)) return "voice is an object: {language, length, case}";
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const allowed = VOICE[key];
    if (!allowed) return refusal(`voice.${key}`);
    if (!allowed.includes(v as string)) return `voice.${key} must be one of ${allowed.join(", ")}`;
    out.push(v as string);
  }
  return out;
}

function readPreferences(response: unknown, collaboration: unknown): string[] | string {
  const out: string[] = [];
  if (response !== undefined) {
    if (!isObject(response)) return "response_preferences is an object: {length, structure, tone, emoji}";
    for (const [key, v] of Object.entries(response)) {
      const values = RESPONSE_PREFERENCES[key];
      if (!values) return refusal(`response_preferences.${key}`);
      const line = values[v as string];
      if (!line) return `response_preferences.${key} must be one of ${Object.keys(values).join(", ")}`;
      out.push(line);
    }
  }
  if (collaboration !== undefined) {
    if (!Array.isArray(collaboration) || collaboration.length > INIT_MAX_PREFERENCES)
      return `collaboration_preferences is a list of at most ${INIT_MAX_PREFERENCES} preferences`;
    for (const p of collaboration) {
      const checked = checkPreference(p);
      if (!checked.ok) return `collaboration_preferences: ${checked.reason}`;
      out.push(checked.text);
    }
  }
  return out;
}

function readExpressions(value: unknown): { signal: string; kind?: HabitKind }[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > INIT_MAX_EXPRESSIONS)
    return `expressions is a list of at most ${INIT_MAX_EXPRESSIONS} candidates`;
  const out: { signal: string; kind?: HabitKind }[] = [];
  for (const [i, e] of value.entries()) {
    if (!isObject(e)) return `expressions[${i}] is an object: {signal, kind?}`;
    for (const key of Object.keys(e)) {
      if (key !== "signal" && key !== "kind") return refusal(`expressions[${i}].${key}`);
    }
    if (typeof e.signal !== "string") return `expressions[${i}].signal is the phrase as the person writes it`;
    out.push({ signal: e.signal, ...(typeof e.kind === "string" ? { kind: e.kind as HabitKind } : {}) });
  }
  return out;
}
