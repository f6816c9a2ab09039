// `lorecards style [list|pin|unpin|forget|pause|resume|brief|score|init|distill] [ID]`: style memory from
// the command line (docs/STYLE-MEMORY.md): what was learned of how the person talks, the controls over
// it, the brief a model would get, its health score, the one-time initialisation and an agent's
// distillation (both read as JSON from --input). Unknown habit ids are `not_found` (exit 3); a missing
// or unknown action is a usage error (exit 2); a submission refused is exit 5, an initialisation made
// before exit 4. The style book loads only here, and its clock may be moved by $LORECARDS_STYLE_NOW.
import { LoreError } from "../errors.ts";
import type { Habit, StyleBook } from "../style/index.ts";
import { openVault } from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg, wholeNumber } from "./_shared.ts";
import { styleOptions } from "./_style-clock.ts";
import { describeScore, distill, initialize } from "./_style-seed.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

const ACTIONS = [
  "list",
  "pin",
  "unpin",
  "forget",
  "pause",
  "resume",
  "brief",
  "score",
  "init",
  "distill",
] as const;
type Action = (typeof ACTIONS)[number];
const STATES = ["candidate", "active", "archived"] as const;

export const styleCommand = defineCommand({
  meta: {
    name: "style",
    description: "style memory: what was learned of how the person talks, and its controls",
  },
  args: {
    action: {
      type: "positional",
      required: false,
      description: `${ACTIONS.join(", ")} (default list)`,
      valueHint: "ACTION",
    },
    id: { type: "positional", required: false, description: "the habit (pin, unpin, forget)" },
    state: {
      type: "string",
      description: `list: only habits in this state (${STATES.join(", ")})`,
      valueHint: "STATE",
    },
    context: {
      type: "string",
      description: "brief: the current message, so habits that do not suit it stay out",
      valueHint: "TEXT",
    },
    since: {
      type: "string",
      description: "brief, score: the revision already held: a delta or an ack; whether to fetch it again",
      valueHint: "REV",
    },
    input: {
      type: "string",
      description: "init, distill: the JSON submitted (a file, or - for stdin)",
      valueHint: "FILE",
    },
    skip: { type: "boolean", description: "init: no history to offer; not asked again" },
    conversation: {
      type: "string",
      description: "distill: the conversation the expressions were noticed in",
      valueHint: "ID",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const action = actionOf(args.action);
    const needsId = action === "pin" || action === "unpin" || action === "forget";
    if (needsId && !args.id)
      throw new LoreError("usage", `style ${action} needs a habit id (see lorecards style list)`);
    if (!needsId && args.id !== undefined)
      throw new LoreError("usage", `style ${action} takes no habit id (got "${args.id}")`);
    if (args.state !== undefined && action !== "list")
      throw new LoreError("usage", "--state applies to list only");
    if (args.context !== undefined && action !== "brief")
      throw new LoreError("usage", "--context applies to brief only");
    if (args.since !== undefined && action !== "brief" && action !== "score")
      throw new LoreError("usage", "--since applies to brief and score only");
    if (args.input !== undefined && action !== "init" && action !== "distill")
      throw new LoreError("usage", "--input applies to init and distill only");
    if ((args.skip && action !== "init") || (args.conversation !== undefined && action !== "distill"))
      throw new LoreError("usage", "--skip applies to init, --conversation to distill");
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    const { openStyle } = await import("../style/index.ts");
    const book = await openStyle(vault.root, styleOptions());
    try {
      return await perform(book, action, args);
    } finally {
      await book.close();
    }
  },
});

function actionOf(value: string | undefined): Action {
  if (value === undefined) return "list";
  if ((ACTIONS as readonly string[]).includes(value)) return value as Action;
  throw new LoreError("usage", `unknown style action "${value}" (one of: ${ACTIONS.join(", ")})`);
}

type Args = {
  id?: string;
  state?: string;
  context?: string;
  since?: string;
  input?: string;
  skip?: boolean;
  conversation?: string;
  json?: boolean;
};

async function perform(book: StyleBook, action: Action, args: Args): Promise<number> {
  switch (action) {
    case "list": {
      const state = stateOf(args.state);
      const habits = await book.list(state === undefined ? undefined : { state });
      const learning = await book.learning();
      const initialization = await book.initialization();
      if (args.json) printJson(toWire({ learning, habits, initialization }));
      else print(describeList(habits, learning));
      return 0;
    }
    case "pin":
    case "unpin": {
      const habit = action === "pin" ? await book.pin(args.id!) : await book.unpin(args.id!);
      if (args.json) printJson(toWire({ habit }));
      else print(`${action === "pin" ? "Pinned" : "Unpinned"} ${habitLine(habit)}`);
      return 0;
    }
    case "forget":
      await book.forget(args.id!);
      if (args.json) printJson({ forgotten: args.id });
      else print(`Forgot ${args.id}: nothing of it is kept.`);
      return 0;
    case "pause":
    case "resume": {
      if (action === "pause") await book.pause();
      else await book.resume();
      const learning = await book.learning();
      if (args.json) printJson({ learning });
      else print(learning ? "Learning is on." : "Learning is paused: no message is observed until resume.");
      return 0;
    }
    case "brief": {
      const since = wholeNumber(args.since, "--since");
      const answer = await book.brief({ context: args.context, since });
      // The text names its revision itself: "Style brief (revision 4): …", "… revision 4: unchanged."
      if (args.json) printJson(toWire(answer));
      else print(answer.text);
      return 0;
    }
    case "score": {
      const score = await book.score({ since: wholeNumber(args.since, "--since") });
      if (args.json) printJson(toWire(score));
      else print(describeScore(score));
      return 0;
    }
    case "init":
      return initialize(book, args);
    case "distill":
      return distill(book, args);
  }
}

function stateOf(value: string | undefined): (typeof STATES)[number] | undefined {
  if (value === undefined) return undefined;
  if ((STATES as readonly string[]).includes(value)) return value as (typeof STATES)[number];
  throw new LoreError("usage", `--state must be one of ${STATES.join(", ")}, got "${value}"`);
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `id  kind "signal"  seen 3× in 2 conversations, last 2026-01-31  (pinned)` */
export function habitLine(h: Habit): string {
  const seen = `seen ${h.count}× in ${h.conversations} conversation${h.conversations === 1 ? "" : "s"}`;
  return `${h.id}  ${h.kind} ${JSON.stringify(h.signal)}  ${seen}, last ${day(h.lastSeen)}${h.pinned ? "  (pinned)" : ""}`;
}

function describeList(habits: readonly Habit[], learning: boolean): string {
  const lines = [learning ? "Learning is on." : "Learning is paused (lorecards style resume turns it on)."];
  for (const state of STATES) {
    const of = habits.filter((h) => h.state === state);
    if (of.length === 0) continue;
    lines.push("", `${state}:`, ...of.map((h) => `  ${habitLine(h)}`));
  }
  if (habits.length === 0) lines.push("", "Nothing learned yet.");
  return lines.join("\n");
}
