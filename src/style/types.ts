import type { InitResult, InitState } from "./_seed.ts";
import type { StyleScore } from "./score.ts";
import type { Resolved as ResolvedStyleSettings, StyleSettings } from "./settings.ts";

/**
 * The shapes style memory hands out and takes in: habits and their states, what a hint returns, the
 * brief and its three answers (full, delta, ack), and the context tags that decide where a habit
 * belongs. Plain data, no behaviour: the rules are in rules.ts, the brief in brief.ts.
 */

/** What kind of habit a signal is; the brief section it goes to follows from it (brief.ts). */
export const HABIT_KINDS = [
  "slang",
  "abbreviation",
  "catchphrase",
  "laughter",
  "address",
  "dialect",
  "idiolect",
  "emoji",
  "emoticon",
  "punctuation",
  "voice",
  "preference",
] as const;
export type HabitKind = (typeof HABIT_KINDS)[number];

/** The kinds an agent may name in a hint: not `voice` (measured) nor `preference` (profileHint). */
export const HINT_KINDS = HABIT_KINDS.filter((k) => k !== "voice" && k !== "preference");

/** A habit is a candidate until it passes the gate, active after, archived when long unseen. */
export const HABIT_STATES = ["candidate", "active", "archived"] as const;
export type HabitState = (typeof HABIT_STATES)[number];

/**
 * Where a habit came from: the built-in dictionary, the vault's own `style-dictionary.yaml`, an emoji
 * found by its Unicode property, a measured trait of the messages, an agent's hint or profile hint,
 * or the one-time initialisation's aggregates (init.ts).
 */
export type HabitSource = "dictionary" | "user" | "emoji" | "voice" | "hint" | "profile" | "init";

/** How established a habit is, from its sightings and conversations (rules.ts `strengthOf`). */
export type Strength = "light" | "regular" | "strong";

/**
 * What the context of a reply is about. A dictionary entry names the contexts it suits (`use_when`)
 * and those it must stay out of (`avoid_when`); context.ts finds them in a message.
 */
export const CONTEXT_TAGS = ["casual", "technical", "formal", "serious", "legal", "medical"] as const;
export type ContextTag = (typeof CONTEXT_TAGS)[number];

export interface Habit {
  /** Stable: the same kind and folded signal always get the same id. */
  id: string;
  /** What the person says ("no cap", "巴适", "😭"), or for voice and preferences what was found. */
  signal: string;
  kind: HabitKind;
  /** "en", "zh", "zh-sichuan", "zh-cantonese", "zh-northeast", "zh-shanghai", "zh-minnan", "any", … */
  locale: string;
  /** A short gloss from the dictionary ("Sichuan: great, comfy"). */
  note?: string;
  useWhen: ContextTag[];
  avoidWhen: ContextTag[];
  source: HabitSource;
  state: HabitState;
  pinned: boolean;
  /** Sightings: messages it was found in, plus agents' hints. */
  count: number;
  /** How many of the sightings were agents' hints. */
  hints: number;
  /** Different conversations it was seen in. */
  conversations: number;
  /** Milliseconds since the epoch, on the book's clock. */
  firstSeen: number;
  lastSeen: number;
  /** At most 60 characters around one sighting, sanitized (sanitize.ts). */
  example?: string;
  strength: Strength;
}

/** What `hint` and `profileHint` did. A refusal says why, in a sentence a person can act on. */
export type HintResult =
  | { status: "recorded"; habit: Habit }
  | { status: "paused" }
  | { status: "refused"; reason: string };

export const BRIEF_SECTIONS = [
  "address",
  "voice",
  "expressions",
  "punctuation",
  "collaboration",
  "avoid",
] as const;
export type BriefSectionId = (typeof BRIEF_SECTIONS)[number];

/** One line of the brief, for the habit (or group of habits) it stands for. */
export interface BriefItem {
  /** The habit's id, or a derived id for a line that sums up several ("dialect:zh-sichuan"). */
  id: string;
  section: BriefSectionId;
  /** What the line is about, short: "\"no cap\"", "😭", "Sichuan dialect". */
  label: string;
  line: string;
  /** The contexts the line must stay out of, and those it is for (empty: any). */
  avoidWhen: ContextTag[];
  useWhen: ContextTag[];
}

export interface BriefSection {
  id: BriefSectionId;
  title: string;
  lines: string[];
}

/** Changes between a revision the caller has and the current one, by item. */
export interface BriefDelta {
  added: BriefItem[];
  changed: BriefItem[];
  removed: BriefItem[];
}

interface BriefCommon {
  /** Changes only when the brief's content does; 0 while there is nothing to say. */
  revision: number;
  /** The tags found in the context given (none when no context was given). */
  context: ContextTag[];
  /** Ready to put in front of a model. */
  text: string;
}

export type BriefAnswer =
  | (BriefCommon & { kind: "full"; sections: BriefSection[] })
  | (BriefCommon & { kind: "delta"; since: number } & BriefDelta)
  | (BriefCommon & { kind: "ack" });

export interface StyleOptions {
  /** The clock, in milliseconds since the epoch (tests and `LORECARDS_STYLE_NOW` move it). */
  now?: () => number;
  /** Where problems that never stop anything are said (a damaged style.db, a bad dictionary entry). */
  warn?: (line: string) => void;
  /** Settings from the environment (`$STYLE_MEMORY_…`, read by cli/): they win over settings.yaml. */
  settings?: Partial<StyleSettings>;
}

/** What the dictionary in use holds, and what was wrong with the vault's own file. */
export interface DictionaryInfo {
  builtIn: number;
  user: number;
  /** The vault's dictionary file, whether or not it exists. */
  file: string;
  /** One line per problem in that file; each bad entry is skipped, the rest used. */
  problems: string[];
}

/** One vault's style memory (book.ts); `openStyle` in index.ts opens it. */
export interface StyleBook {
  /** One new message of the person's own (never the model's, a tool's, or our own blocks). */
  observe(conversation: string, text: string): Promise<void>;
  /** The same for several messages at once, in one write (a busy gateway's messages of a moment). */
  observeAll(messages: readonly { conversation: string; text: string }[]): Promise<void>;
  /** An agent's hint: a habit the dictionary cannot know; one sighting, never past the gate. */
  hint(
    conversation: string,
    hint: { signal: string; kind?: HabitKind; example?: string },
  ): Promise<HintResult>;
  /** A collaboration preference; labels, diagnoses and private facts are refused. */
  profileHint(conversation: string, preference: string): Promise<HintResult>;
  list(filter?: { state?: HabitState }): Promise<Habit[]>;
  /** By id, or by signal when exactly one habit has it. */
  pin(id: string): Promise<Habit>;
  unpin(id: string): Promise<Habit>;
  /** Deleted for good (a later sighting starts it afresh). */
  forget(id: string): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  learning(): Promise<boolean>;
  brief(options?: { context?: string; since?: number }): Promise<BriefAnswer>;
  /** The dictionary in use and the problems of the vault's file. */
  dictionary(): Promise<DictionaryInfo>;
  /** The settings in force, where each came from, and the values that were ignored. */
  settings(): Promise<ResolvedStyleSettings>;
  /** Readiness, drift, over-imitation and whether a caller holding `since` should fetch the brief again. */
  score(options?: { since?: number }): Promise<StyleScore>;
  /** Whether the one-time initialisation is still to be done (init.ts). */
  initialization(): Promise<InitState>;
  /** The one-time initialisation: bounded aggregates, or `{action: "skip"}`; refused when it is not one. */
  initialize(submission: unknown): Promise<InitResult>;
  /**
   * What an agent distilled from a conversation: at most 3 expression candidates (one hinted sighting
   * each, behind the gate) and 1–8 collaboration preferences the person reviewed (active at once).
   */
  distill(conversation: string, input: DistillInput): Promise<DistillResult>;
  close(): Promise<void>;
}

export interface DistillInput {
  expressions?: readonly { signal: string; kind?: HabitKind; example?: string }[];
  preferences?: readonly string[];
}

export interface DistillResult {
  expressions: HintResult[];
  preferences: HintResult[];
}
