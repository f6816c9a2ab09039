/**
 * Style memory's MCP tools (README "Style memory"): `style_brief` (the brief in full, the delta since
 * a revision the agent holds, or a short ack), `style_observe` (what the agent noticed that the
 * dictionary cannot know: a personal phrase, a concrete collaboration preference) and `style_admin`
 * (list, review, pin, unpin, forget, pause, resume; the health score; the one-time initialisation of
 * an empty store; an agent's distillation of a conversation). The person's messages are observed by
 * the gateway and the hook, never sent through here. Three compact tools rather than one per action:
 * every tool's description is paid for in every request an agent makes. Each call opens the vault's
 * style book and closes it again, so a long stdio session holds no database open between calls.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LoreError } from "../errors.ts";
import type { DistillInput, Habit, HintResult, StyleBook, StyleOptions } from "../style/index.ts";
import { toWire } from "../wire.ts";
import { toolError, toolResult } from "./_result.ts";
import {
  type ADMIN_ACTIONS,
  adminResultShape,
  adminShape,
  briefResultShape,
  briefShape,
  observeResultShape,
  observeShape,
} from "./style-schemas.ts";

/** How many habits `review` puts in front of the agent at once. */
const REVIEW_SIZE = 12;

type Open = () => Promise<StyleBook>;

/** Registers the three tools on `server`, each opening the vault's style book for its call. */
export function registerStyleTools(server: McpServer, vaultRoot: string, options: StyleOptions = {}): void {
  const open: Open = async () => (await import("../style/index.ts")).openStyle(vaultRoot, options);

  server.registerTool(
    "style_brief",
    {
      title: "Get the style brief",
      description:
        "How the person talks and likes to work with you, learned from their own messages: a short brief " +
        "in fixed sections with strength tags. Pass since (the revision you hold) for only what changed, " +
        "or an ack when nothing did. Use it lightly: shape your replies, never copy the person. While " +
        "style memory is empty and never initialised, the answer carries `initialization`: you may then " +
        "seed it once through style_admin init.",
      inputSchema: briefShape,
      outputSchema: briefResultShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      respond(open, async (book) => {
        const brief = await book.brief({ context: args.context, since: args.since });
        // As style-memory-mcp's bootstrap does: an empty store that was never seeded says so, once.
        const initialization = await book.initialization();
        return initialization.state === "needed" ? { ...brief, initialization } : brief;
      }),
  );

  server.registerTool(
    "style_observe",
    {
      title: "Tell style memory what you noticed",
      description:
        "The person's messages are observed without you; add only what a dictionary cannot know: a " +
        "phrase of their own (hints) or a concrete collaboration preference (profile_hints). Each counts " +
        "as one sighting; nothing becomes active before it is seen in two conversations.",
      inputSchema: observeShape,
      outputSchema: observeResultShape,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      respond(open, async (book) => {
        // One after the other: a hint repeated in one call is two sightings, in the order given.
        const hints: HintResult[] = [];
        for (const h of args.hints ?? []) hints.push(await book.hint(args.conversation, h));
        const preferences: HintResult[] = [];
        for (const p of args.profile_hints ?? [])
          preferences.push(await book.profileHint(args.conversation, p));
        return { hints, profile_hints: preferences };
      }),
  );

  server.registerTool(
    "style_admin",
    {
      title: "Review and control style memory",
      description:
        "What style memory holds and the person's controls over it: list or review the habits, pin one " +
        "(kept for good), forget one (deleted now), pause or resume learning. Do this when the person asks.",
      inputSchema: adminShape,
      outputSchema: adminResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => respond(open, (book) => admin(book, args)),
  );
}

type AdminArgs = {
  action: (typeof ADMIN_ACTIONS)[number];
  id?: string;
  state?: Habit["state"];
  since?: number;
  init?: unknown;
  conversation?: string;
  expressions?: DistillInput["expressions"];
  preferences?: string[];
};

/** Which action each optional field belongs to: given to another, it is an error, not ignored. */
const FIELD_OF: Record<string, readonly string[]> = {
  id: ["pin", "unpin", "forget"],
  state: ["list"],
  since: ["score"],
  init: ["init"],
  conversation: ["distill"],
  expressions: ["distill"],
  preferences: ["distill"],
};

async function admin(book: StyleBook, args: AdminArgs): Promise<Record<string, unknown>> {
  const needsId = args.action === "pin" || args.action === "unpin" || args.action === "forget";
  if (needsId && args.id === undefined) throw new LoreError("invalid_input", `${args.action} needs an id`);
  for (const [field, actions] of Object.entries(FIELD_OF)) {
    if (args[field as keyof AdminArgs] !== undefined && !actions.includes(args.action))
      throw new LoreError("invalid_input", `${field} applies to ${actions.join(", ")} only`);
  }
  switch (args.action) {
    case "list":
      return {
        learning: await book.learning(),
        habits: await book.list(args.state === undefined ? undefined : { state: args.state }),
      };
    case "review":
      return { learning: await book.learning(), review: reviewQueue(await book.list()) };
    case "pin":
      return { habit: await book.pin(args.id!) };
    case "unpin":
      return { habit: await book.unpin(args.id!) };
    case "forget":
      await book.forget(args.id!);
      return { forgotten: args.id! };
    case "pause":
      await book.pause();
      return { learning: await book.learning() };
    case "resume":
      await book.resume();
      return { learning: await book.learning() };
    case "score":
      return { ...(await book.score({ since: args.since })) };
    case "init":
      if (args.init === undefined)
        throw new LoreError("invalid_input", "init needs init: {action: submit | skip, …}");
      return { ...(await book.initialize(args.init)) };
    case "distill":
      if (args.conversation === undefined)
        throw new LoreError("invalid_input", "distill needs a conversation");
      return {
        ...(await book.distill(args.conversation, {
          expressions: args.expressions,
          preferences: args.preferences,
        })),
      };
  }
}

/**
 * The habits a person should confirm or correct: active ones not pinned yet (they shape the brief),
 * then candidates (what is about to), each group newest first; archived and pinned ones are settled.
 */
export function reviewQueue(habits: readonly Habit[]): Habit[] {
  const newest = (a: Habit, b: Habit) => b.lastSeen - a.lastSeen;
  const open = habits.filter((h) => !h.pinned);
  return [
    ...open.filter((h) => h.state === "active").sort(newest),
    ...open.filter((h) => h.state === "candidate").sort(newest),
  ].slice(0, REVIEW_SIZE);
}

/**
 * As server.ts answers: structured content and the same JSON as text, in the wire convention every
 * answer follows (src/wire.ts); a failure names its code.
 */
async function respond(open: Open, fn: (book: StyleBook) => Promise<object>): Promise<CallToolResult> {
  try {
    const book = await open();
    try {
      return toolResult(toWire(await fn(book)) as Record<string, unknown>);
    } finally {
      await book.close();
    }
  } catch (err) {
    return toolError(err);
  }
}
