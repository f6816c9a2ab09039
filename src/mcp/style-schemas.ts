/**
 * Input and output schemas of style memory's three MCP tools (style-tools.ts), with descriptions
 * written for the model that calls them. The limits are part of the contract: a hint is a phrase, not a
 * message, and a call over a limit is refused naming the field before the style book is opened.
 */
import * as z from "zod";
import { HINT_KINDS } from "../style/types.ts";

/** Input caps: a hint is a phrase, not a message; a context is the current message, cut. */
const MAX_SIGNAL_CHARS = 60;
const MAX_EXAMPLE_CHARS = 200;
const MAX_PREFERENCE_CHARS = 200;
const MAX_CONTEXT_CHARS = 4000;
const MAX_HINTS = 5;
export const ADMIN_ACTIONS = [
  "list",
  "review",
  "pin",
  "unpin",
  "forget",
  "pause",
  "resume",
  "score",
  "init",
  "distill",
] as const;

const conversation = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe(
    "An id of the conversation you are in, the same for every call in it (a session id, or one you " +
      "made up at its start). A habit becomes active only once seen in two different conversations.",
  );

const hint = z.object({
  signal: z
    .string()
    .trim()
    .min(1)
    .max(MAX_SIGNAL_CHARS)
    .describe('The habit as the person writes it, e.g. "tiny but mighty".'),
  kind: z
    .enum(HINT_KINDS)
    .optional()
    .describe("What sort of habit it is (default idiolect: their own phrase)."),
  example: z
    .string()
    .max(MAX_EXAMPLE_CHARS)
    .optional()
    .describe("A short quote where they used it; cut to 60 characters, and dropped if it holds a secret."),
});

export const briefShape = {
  since: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The revision of the brief you already have: you get what changed since, or a short ack."),
  context: z
    .string()
    .max(MAX_CONTEXT_CHARS)
    .optional()
    .describe(
      "The person's current message: habits that do not suit it (slang in a medical question) stay out.",
    ),
};

export const observeShape = {
  conversation,
  hints: z
    .array(hint)
    .max(MAX_HINTS)
    .optional()
    .describe("Habits of the person's own writing that a dictionary of slang and emoji would not know."),
  profile_hints: z
    .array(z.string().trim().min(1).max(MAX_PREFERENCE_CHARS))
    .max(MAX_HINTS)
    .optional()
    .describe(
      'Concrete preferences about how to work with them, e.g. "conclusions before details". Never a ' +
        "personality label, a diagnosis or a private fact: those are refused.",
    ),
};

/**
 * The one-time initialisation, passed through as given so that style/init.ts refuses a field that is
 * not an aggregate by name (a raw message, a title, a name) instead of a schema dropping it unsaid.
 */
const initShape = z
  .looseObject({
    action: z.enum(["submit", "skip"]).describe("skip: no history to offer (not asked again)."),
    sessions: z.number().int().optional().describe("How many of your own sessions you looked at (1–12)."),
    days: z.number().int().optional().describe("How far back they go, in days (1–30)."),
    voice: z
      .looseObject({})
      .optional()
      .describe("language: chinese|english|mixed; length: short|medium|long; case: lowercase|capitals."),
    response_preferences: z
      .looseObject({})
      .optional()
      .describe(
        "length: short|detailed; structure: conclusion_first|step_by_step; tone: warm|neutral|playful; emoji: avoid|welcome.",
      ),
    collaboration_preferences: z.array(z.unknown()).optional().describe("Up to 8 concrete ways of working."),
    expressions: z
      .array(z.unknown())
      .optional()
      .describe("Up to 3 {signal, kind?}: candidates, behind the gate."),
  })
  .describe(
    "Aggregates only, never raw messages, session titles or names: those are refused, as is any other field.",
  );

export const adminShape = {
  action: z
    .enum(ADMIN_ACTIONS)
    .describe(
      "list: every habit (or one state); review: the habits worth confirming, newest first; pin: keep a " +
        "habit for good; unpin; forget: delete it now; pause / resume: stop or restart learning; score: " +
        "readiness, drift and over-imitation risk, and whether to fetch the brief again; init: the " +
        "one-time initialisation of an empty store (see style_brief's initialization); distill: up to 3 " +
        "expression candidates and 1–8 collaboration preferences the person reviewed.",
    ),
  id: z.string().trim().min(1).max(200).optional().describe("pin, unpin, forget: the habit's id from list."),
  state: z.enum(["candidate", "active", "archived"]).optional().describe("list: only habits in this state."),
  since: z.number().int().min(0).optional().describe("score: the brief's revision you hold."),
  init: initShape.optional().describe("init: what your own recent sessions show, or {action: skip}."),
  conversation: conversation.optional().describe("distill: the conversation you noticed these in."),
  expressions: z.array(hint).max(3).optional().describe("distill: up to 3 expression candidates."),
  preferences: z
    .array(z.string().trim().min(1).max(MAX_PREFERENCE_CHARS))
    .min(1)
    .max(8)
    .optional()
    .describe("distill: 1–8 concrete collaboration preferences the person confirmed; active at once."),
};

/**
 * Output schemas: the fields an agent relies on, each object open to more (the style book's Habit and
 * brief carry further detail, passed through as they are).
 */
const habitOut = z.looseObject({
  id: z.string(),
  signal: z.string(),
  kind: z.string(),
  state: z.enum(["candidate", "active", "archived"]),
  pinned: z.boolean(),
  count: z.number().describe("Sightings: messages it was found in, plus hints."),
  conversations: z.number(),
  last_seen: z.string().describe("When it was last seen, ISO 8601."),
});
const hintOut = z.looseObject({
  status: z.enum(["recorded", "paused", "refused"]),
  reason: z.string().optional().describe("refused: why, in a sentence."),
  habit: habitOut.optional(),
});

const briefItem = z.looseObject({ id: z.string(), section: z.string(), line: z.string() });

export const briefResultShape = {
  kind: z
    .enum(["full", "delta", "ack"])
    .describe("full: the whole brief; delta: what changed since; ack: nothing did."),
  revision: z.number().describe("Pass it as since next time."),
  text: z.string().describe("Ready to read: the brief, the changes, or one line."),
  context: z
    .array(z.string())
    .describe("What the context given was found to be about (casual, technical, …)."),
  sections: z
    .array(z.looseObject({ id: z.string(), title: z.string(), lines: z.array(z.string()) }))
    .optional()
    .describe("full: the brief's sections in their fixed order."),
  since: z.number().optional().describe("delta: the revision it starts from."),
  added: z.array(briefItem).optional(),
  changed: z.array(briefItem).optional(),
  removed: z.array(briefItem).optional(),
  initialization: z
    .looseObject({ state: z.string() })
    .optional()
    .describe("Present while the store is empty and never initialised: style_admin init, once."),
};
export const observeResultShape = { hints: z.array(hintOut), profile_hints: z.array(hintOut) };
export const adminResultShape = {
  score: z.number().optional().describe("score: 0–100."),
  readiness: z.looseObject({}).optional(),
  drift: z.looseObject({}).optional(),
  over_imitation: z.looseObject({}).optional(),
  brief: z.looseObject({ refresh_recommended: z.boolean() }).optional(),
  advice: z.array(z.string()).optional(),
  status: z.string().optional().describe("init: initialized, skipped, paused, refused or already."),
  reason: z.string().optional(),
  recorded: z.array(habitOut).optional(),
  expressions: z.array(hintOut).optional(),
  preferences: z.array(hintOut).optional(),
  learning: z.boolean().optional(),
  habits: z.array(habitOut).optional(),
  review: z.array(habitOut).optional(),
  habit: habitOut.optional(),
  forgotten: z.string().optional(),
};
