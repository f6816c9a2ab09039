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
export const ADMIN_ACTIONS = ["list", "review", "pin", "unpin", "forget", "pause", "resume"] as const;

const conversation = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe(
    "An id of the conversation you are in, the same for every call in it (a session id, or one you " +
      "made up at its start). A habit becomes active only once seen in two different conversations.",
  );

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
    .array(
      z.object({
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
          .describe(
            "A short quote where they used it; cut to 60 characters, and dropped if it holds a secret.",
          ),
      }),
    )
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

export const adminShape = {
  action: z
    .enum(ADMIN_ACTIONS)
    .describe(
      "list: every habit (or one state); review: the habits worth confirming, newest first; pin: keep a " +
        "habit for good; unpin; forget: delete it now; pause / resume: stop or restart learning.",
    ),
  id: z.string().trim().min(1).max(200).optional().describe("pin, unpin, forget: the habit's id from list."),
  state: z.enum(["candidate", "active", "archived"]).optional().describe("list: only habits in this state."),
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
};
export const observeResultShape = { hints: z.array(hintOut), profile_hints: z.array(hintOut) };
export const adminResultShape = {
  learning: z.boolean().optional(),
  habits: z.array(habitOut).optional(),
  review: z.array(habitOut).optional(),
  habit: habitOut.optional(),
  forgotten: z.string().optional(),
};
