// A vault of real card files for the "which cards" tests: recall() on it, and short views of the answer.
import { onTestFinished } from "bun:test";
import type { RecallOptions, RecallResult, Selected, Turn } from "../../src/recall/index.ts";
import { chosenCards, openEngine } from "../../src/recall/index.ts";
import { cardText, tempVault } from "../support/card-vault.ts";

/** `people/<Name>.md` with the frontmatter lines given (keywords default to the title). */
export function person(name: string, frontmatter = "", body = `${name} is here.\n`): [string, string] {
  return [`people/${name}.md`, cardText(frontmatter || "priority: 0", body)];
}

export interface Lorebook {
  recall(turns: readonly (string | Turn)[], options?: RecallOptions): Promise<RecallResult>;
}

/**
 * A vault holding `cards`, removed when the test ends. (Not by an `afterEach` of this module: a hook
 * registered while a module loads belongs to the first test file that imports it, and every later
 * file in the same `bun test` process left its vaults in the temp folder.)
 */
export async function lorebook(cards: readonly [string, string][]): Promise<Lorebook> {
  const vault = tempVault(Object.fromEntries(cards));
  onTestFinished(() => vault.remove());
  const engine = await openEngine(vault.root, { segmenter: false });
  return {
    recall: (turns, options = {}) =>
      engine.recall(
        turns.map((t) => (typeof t === "string" ? { role: "user" as const, text: t } : t)),
        options,
      ),
  };
}

/** The selection as `key verdict/reason via` strings, in the result's order. */
export function verdicts(result: RecallResult): string[] {
  return result.selection.map(describe);
}

/** One card's line of `verdicts`, or "absent". */
export function verdictOf(result: RecallResult, key: string): string {
  const entry = result.selection.find((e) => e.card.key === key);
  return entry ? describe(entry) : "absent";
}

function describe(e: Selected): string {
  return `${e.card.key} ${e.verdict}${e.reason ? `/${e.reason}` : ""} ${e.via}`;
}

/** Keys of the cards that go in, in order. */
export const chosen = (result: RecallResult) => chosenCards(result).map((c) => c.card.key);

/**
 * A conversation of person messages, one recall per person turn (an assistant reply between them), the
 * memory of each recall handed to the next as history, as the gateway keeps it per conversation.
 */
export async function converse(
  book: Lorebook,
  said: readonly string[],
  options: RecallOptions = {},
): Promise<RecallResult[]> {
  const turns: Turn[] = [];
  const results: RecallResult[] = [];
  let memory = {};
  for (const text of said) {
    if (turns.length > 0) turns.push({ role: "assistant", text: "(reply)" });
    turns.push({ role: "user", text });
    const assistantMessages = turns.filter((t) => t.role === "assistant").length;
    const history = { messages: turns.length, assistantMessages, memory };
    const result = await book.recall(turns, { scanDepth: 0, ...options, history });
    results.push(result);
    memory = result.timed;
  }
  return results;
}
