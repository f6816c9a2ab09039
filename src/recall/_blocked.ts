/**
 * Which of a card's secondary rules stopped it, and on which words, for the context door: asked only
 * about cards the gate already vetoed `secondary`, so the proxy path pays nothing for a card that fires.
 * The answer comes from the gate's own rule (match/ `vetoOf`) asked one rule and one word at a time, on
 * a copy of the card that has only that rule: the door can never disagree with the veto it explains.
 * The order is the gate's: all, any, not, not_all, `@@additional_keys`, `@@exclude_keys`.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardMeta, CardRules, Secondary } from "../card/types.ts";
import { fold, type MatchOptions, vetoOf, type WindowMessage } from "../match/index.ts";
import type { Scan } from "./notice.ts";
import type { SecondaryBlock, Selected } from "./types.ts";

const NO_WORDS: Secondary = { all: [], any: [], not: [], notAll: [] };

/** Each entry vetoed `secondary` gets `blockedBy`; reached entries are judged on the text that reached them. */
export async function withBlocks(selection: Selected[], scan: Scan): Promise<Selected[]> {
  const out: Selected[] = [];
  for (const entry of selection) {
    if (entry.reason !== "secondary" || entry.blockedBy) {
      out.push(entry);
      continue;
    }
    const reached = entry.via === "reached";
    const window = reached ? [messageOf(entry.trigger)] : scan.window;
    const found = reached ? new Set([0]) : entry.found;
    const options = reached ? { ...scan.options, scanDepth: 0 } : scan.options;
    const blockedBy = await secondaryBlock(entry.card, found, window, options);
    out.push(blockedBy ? { ...entry, blockedBy } : entry);
  }
  return out;
}

function messageOf(text: string): WindowMessage {
  return { raw: text, folded: fold(text) };
}

/** The first of the card's secondary rules that stops it on its own, or undefined when none does. */
export async function secondaryBlock(
  card: CardMeta,
  found: ReadonlySet<number>,
  window: readonly WindowMessage[],
  options: MatchOptions,
): Promise<SecondaryBlock | undefined> {
  const rules = rulesOf(card);
  const bare: CardRules = { ...rules, policy: "automatic", additionalKeys: [], excludeKeys: [] };
  const stops = async (secondary: Partial<Secondary>, extra: Partial<CardRules> = {}) => {
    const only: CardMeta = {
      ...card,
      inject: true,
      secondary: { ...NO_WORDS, ...secondary },
      rules: { ...bare, ...extra },
    };
    return (await vetoOf(only, found, window, options)) !== null;
  };
  const { all, any, not, notAll } = card.secondary;
  for (const word of all) if (await stops({ all: [word] })) return { rule: "all", words: [word] };
  if (any.length > 0 && (await stops({ any }))) return { rule: "any", words: any };
  for (const word of not) if (await stops({ not: [word] })) return { rule: "not", words: [word] };
  if (notAll.length > 0 && (await stops({ notAll }))) return { rule: "not_all", words: notAll };
  for (const line of rules.additionalKeys) {
    if (await stops({}, { additionalKeys: [line] })) return { rule: "additional_keys", words: line };
  }
  for (const word of rules.excludeKeys) {
    if (await stops({}, { excludeKeys: [word] })) return { rule: "exclude_keys", words: [word] };
  }
  return undefined;
}
