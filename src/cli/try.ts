// `lorecards try "sentence"`: a dry run of recall with the reasons — what fires, on which words,
// in or out of budget (and why a card is out), the exact text that would be injected, and words that
// deserve a card. With --turns the conversation is replayed one user message at a time, so timed
// effects (sticky, cooldown, delay) act as they would in a real one (recall/history.ts). With
// --inject index it shows the index an agent would get (recall/stages/index-block.ts), under session `try`.
import { declaredJson, recallJson } from "../explain/index.ts";
import {
  chosenCards,
  contextText,
  firedCards,
  hitEntry,
  type IndexIds,
  injectedChars,
  newQueryId,
  openEngine,
  parseTurns,
  type RecallResult,
  recallRecordOf,
  type Seen,
  type Selected,
  simulate,
} from "../recall/index.ts";
import { openStore, stateUrl } from "../state/index.ts";
import { MAIN_BOOK } from "../vault/index.ts";
import {
  askedNames,
  budgetArg,
  checkedBooks,
  injectModeArg,
  recallArgs,
  recallFlags,
  scanDepthArg,
  seedArg,
  turnsArg,
  turnsJson,
  withArg,
} from "./_args.ts";
import { asOfArg, asOfJson, asOfLines, openAsOf } from "./_as-of.ts";
import { selfKeeper } from "./_self.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg, wholeNumber } from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { unreadBoundBooks } from "./_unread-books.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const tryCommand = defineCommand({
  meta: { name: "try", description: "which cards a sentence fires, why, and what deserves a card" },
  args: {
    sentence: { type: "positional", description: "the current message", required: true },
    ...turnsArg,
    ...budgetArg,
    ...scanDepthArg,
    ...recallArgs,
    ...seedArg,
    ...withArg,
    ...injectModeArg,
    ...asOfArg,
    "show-context": { type: "boolean", description: "print the exact text that would be injected" },
    log: {
      type: "boolean",
      description: "record this try in the hit log (hits.jsonl); with --inject index, the recall too",
    },
    ...storeArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const turns = parseTurns(turnsJson(args.turns), args.sentence, { name: "--turns", code: "usage" });
    // A cold process: save a rebuilt index and matcher so the next command starts warm.
    const asOf = openAsOf(args);
    const root = asOf?.root ?? vaultPath(args);
    const engine = await openEngine(root, {
      once: true,
      create: !asOf && isDefaultVault(args),
      persist: !asOf,
      ...(!asOf && { keeper: selfKeeper(root) }),
    });
    const flags = recallFlags(args);
    checkedBooks(engine, flags);
    const ask = await askedNames(engine, args.with, flags.books);
    const budget = wholeNumber(args.budget, "--budget");
    const index: IndexIds | undefined =
      args.inject === "index" ? { session: "try", query: newQueryId() } : undefined;
    const scanDepth = wholeNumber(args["scan-depth"], "--scan-depth");
    const result = await simulate(
      (t, o) => engine.recall(t, o),
      turns,
      { ask, budget, scanDepth, seed: args.seed, index, ...flags },
      await engine.reach(scanDepth, flags.books),
    );
    if (args.log && chosenCards(result).length > 0) {
      const store = await openStore(namedStore(args) ?? stateUrl(engine.vault.root));
      const now = new Date();
      const listed = recallRecordOf(result, "try", now.getTime());
      await Promise.all([
        store.appendHits([hitEntry("try", result, args.sentence, now)]),
        listed && store.recordRecall(listed),
      ]).finally(() => store.close());
    }
    const then = asOf && { as_of: asOfJson(asOf) };
    if (args.json) printJson({ ...recallJson(result), ...(index && { index }), ...then });
    else
      print(
        (asOf ? asOfLines(asOf) : "") +
          describe(result, args["show-context"] === true, index !== undefined) +
          (flags.books?.named
            ? ""
            : unreadBoundBooks(engine.books(), result.books ?? [MAIN_BOOK])
                .map((l) => `\n${l}`)
                .join("")),
      );
    return 0;
  },
});

/** A chosen card longer than the budget alone (recall/stages/budget.ts). */
const OVER_BUDGET = "in, over the budget alone (the top card always goes in)";

/** `index`: what would go in is the index's lines, not the cards' text. */
function describe(result: RecallResult, showContext: boolean, index = false): string {
  const lines: string[] = [];
  const fired = firedCards(result);
  const context = contextText(result);
  if (result.books) lines.push(`Books read: ${result.books.join(", ")}`);
  if (fired.length === 0) lines.push("No card fires.");
  else {
    const total = [...context].length;
    lines.push(
      index
        ? `${fired.length} card(s) fire; the index that would be injected is ${total} characters:`
        : `${fired.length} card(s) fire; ${injectedChars(result)} characters of cards would be injected (${total} with the framing line):`,
    );
    const titles = new Map(fired.map((f) => [f.id, f.card.title]));
    fired.forEach((f, i) => {
      const status = f.verdict !== "chosen" ? whyOut(f) : f.overBudget ? OVER_BUDGET : "in budget";
      // A card reached through another's text names it: its words were not the person's (explain says so too).
      const from = f.via === "reached" && f.reachedFrom ? titles.get(f.reachedFrom) : undefined;
      lines.push(
        `  ${i + 1}. ${f.card.title} [${f.card.book ? `${f.card.book}: ` : ""}${f.card.kind}]  score ${f.score}  ${cameBy(f)}${from ? ` (in ${from}'s text)` : ""}  ${f.chars ?? 0} chars  ${status}`,
      );
    });
  }
  const { names, places, aliases } = result.candidates;
  if (names.length + places.length + aliases.length > 0) {
    lines.push("Words that may deserve a card:");
    if (names.length) lines.push(`  names:   ${names.join(", ")}`);
    if (places.length) lines.push(`  places:  ${places.join(", ")}`);
    if (aliases.length) lines.push(`  aliases: ${aliases.join(", ")}`);
  }
  const declared = declaredJson(result).warning;
  if (declared) lines.push(`Note: ${declared}.`);
  if (showContext && context) lines.push("", "--- context ---", context.trimEnd(), "--- end ---");
  for (const b of result.broken) lines.push(`skipped ${b.path}: ${b.error} (see: lorecards check)`);
  return lines.join("\n");
}

/** How a card came in: the words it fired on, or why it needs none (always on, asked for, sticky, reached). */
export function cameBy(f: Pick<Seen, "hits" | "via">): string {
  if (f.hits.length > 0) return `on: ${f.hits.join(", ")}`;
  return {
    named: "on: (no words)",
    always: "always on",
    sticky: "still sticky",
    explicit: "asked for",
    reached: "reached",
  }[f.via];
}

/** Why a fired card is not in, in words. */
function whyOut(card: Selected): string {
  switch (card.reason) {
    case "budget":
      return "left out: over the character budget";
    case "budget_tokens":
      return "left out: over the token budget";
    case "surface_cap":
      return "left out: over the surface's cap";
    case "empty":
      return "left out: no public text";
    case "recorded":
    case "present":
      return "already in context";
    default:
      return card.reason ? `not in: ${card.reason}` : "not in";
  }
}
