// `lorecards explain "text"`: the context door. For every card that went in, was reached, is already in
// context, was left out or nearly fired, one line on why; for each card named with --card that did not
// fire, why not. With --conversation, the next turn of a conversation the gateway or the hook keeps in
// state.db: its ledger says what is in context, its memory runs the timed effects. A dry run: it writes
// nothing (no hit log, no ledger, no index, no state.db where there is none).
import { existsSync } from "node:fs";
import { LoreError } from "../errors.ts";
import { type DoorAnswer, type ExplainedCard, openDoor } from "../explain/index.ts";
import { earlierIn, namesIn, openEngine, parseTurns } from "../recall/index.ts";
import { type Conversation, openStore, statePath, stateUrl } from "../state/index.ts";
import { MAIN_BOOK } from "../vault/index.ts";
import {
  askedNames,
  budgetArg,
  checkedBooks,
  earlierArg,
  recallArgs,
  recallFlags,
  scanDepthArg,
  seedArg,
  tierArg,
  tierHints,
  turnsArg,
  turnsJson,
  withArg,
} from "./_args.ts";
import { defineCommand, jsonArg, print, printJson, repeatedFlag, vaultArg, wholeNumber } from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { unreadBoundBooks } from "./_unread-books.ts";
import { vaultPath } from "./_vault.ts";

export const explainCommand = defineCommand({
  meta: { name: "explain", description: "why each card is, or is not, in front of the model (a dry run)" },
  args: {
    text: { type: "positional", description: "the current message", required: true },
    ...turnsArg,
    card: {
      type: "string",
      description: "a card to explain even if it does not fire (key, kind/key or title); repeat it for more",
      valueHint: "NAME",
    },
    conversation: {
      type: "string",
      description: "explain the next turn of this conversation of the gateway or hook (its id in state.db)",
      valueHint: "ID",
    },
    "reinject-after": {
      type: "string",
      description:
        "with --conversation: turns before a card in its ledger may go in again (default: the hook's 6 for hook sessions; never for the gateway's)",
      valueHint: "N",
    },
    ...budgetArg,
    ...scanDepthArg,
    ...recallArgs,
    ...seedArg,
    ...withArg,
    ...tierArg,
    ...earlierArg,
    ...storeArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args, rawArgs }) {
    const turns = parseTurns(turnsJson(args.turns), args.text, { name: "--turns", code: "usage" });
    const engine = await openEngine(vaultPath(args), { once: true });
    try {
      const given = recallFlags(args);
      const conversation = args.conversation
        ? await conversationOf(engine.vault.root, args.conversation, namedStore(args))
        : undefined;
      const flags =
        given.books?.named === undefined && conversation?.books
          ? { ...given, books: { ...given.books, named: conversation.books } }
          : given;
      checkedBooks(engine, flags);
      const answer = await openDoor(engine, turns, {
        cards: cardNames(rawArgs),
        field: "--card",
        conversation,
        reinjectAfter: wholeNumber(args["reinject-after"], "--reinject-after"),
        budget: wholeNumber(args.budget, "--budget"),
        scanDepth: wholeNumber(args["scan-depth"], "--scan-depth"),
        seed: args.seed,
        ask: await askedNames(engine, args.with, flags.books),
        tierHints: await tierHints(engine, args.tier),
        earlier: earlierIn(args.earlier, "usage"),
        ...flags,
      });
      if (args.json) printJson(answer);
      else
        print(
          [
            describe(answer),
            ...(flags.books?.named ? [] : unreadBoundBooks(engine.books(), answer.books ?? [MAIN_BOOK])),
          ].join("\n"),
        );
      return 0;
    } finally {
      engine.close();
    }
  },
});

/**
 * Every `--card` value, in order (citty keeps only the last of a repeated flag), each split on commas
 * as `try --with` is.
 */
export function cardNames(rawArgs: readonly string[]): string[] {
  return repeatedFlag(rawArgs, "--card").flatMap((value) => namesIn(value));
}

/** What the state store remembers of a conversation; one it does not know is `not_found`. */
async function conversationOf(
  root: string,
  id: string,
  named: string | undefined,
): Promise<Conversation & { books?: string[] }> {
  // Opening a store that is not there would create it: a dry run must not.
  if (named === undefined && !existsSync(statePath(root)))
    throw new LoreError("not_found", `no conversation "${id}": no state.db yet`);
  const store = await openStore(named ?? stateUrl(root));
  try {
    const conversation = await store.loadConversation(id);
    if (conversation.turn === 0)
      throw new LoreError(
        "not_found",
        `no conversation "${id}" in ${named === undefined ? "state.db" : "the store"}`,
      );
    // Its next turn reads the books its last turn read (docs/BOOKS.md), unless --book says others.
    const books = (await store.turns(id, 1)).at(-1)?.books;
    return books ? { ...conversation, books } : conversation;
  } finally {
    await store.close();
  }
}

function describe(answer: DoorAnswer): string {
  const lines: string[] = [];
  if (answer.conversation)
    lines.push(`Conversation ${answer.conversation.id}, as its turn ${answer.conversation.turn}:`);
  lines.push(LORE_LINES[answer.lore]);
  const cards = answer.cards;
  if (cards.length === 0) lines.push("No card fires, and none was asked about.");
  for (const card of cards) lines.push(`${mark(card)} ${card.line}`);
  const chars = answer.injected_chars;
  lines.push(
    answer.injected.length === 0
      ? "Nothing would be injected."
      : `${answer.injected.length} card(s) would be injected, ${chars} characters of cards.`,
  );
  return lines.join("\n");
}

/** The lore switch in force, the door's first line (the writing app's "lore-enabled" / "lore-free"). */
const LORE_LINES: Record<DoorAnswer["lore"], string> = {
  auto: "Lore: auto (what was named and what was noticed).",
  declared: "Lore: declared (always-on cards and cards asked for only; nothing noticed goes in).",
  none: "Lore: none (nothing at all goes in for this request).",
};

/** `+` goes in, `=` already in context, `-` left out, `x` does not fire. */
function mark(card: ExplainedCard): string {
  switch (card.verdict) {
    case "chosen":
      return "+";
    case "in_context":
      return "=";
    case "left_out":
      return "-";
    default:
      return "x";
  }
}
