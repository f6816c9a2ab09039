/**
 * Exact token counts for a budget in tokens (`--budget-tokens`, `budget_tokens` in settings.yaml).
 * gpt-tokenizer with the o200k_base encoding (GPT-4o and later): loading its tables costs a few
 * hundred milliseconds, so it is imported only when a token budget is set, and a cold `hook` or
 * `try` without one never loads it. Text that looks like a special token (`<|endoftext|>`) is
 * counted as the plain text it is, never refused.
 */

/** A token budget ready for the budget stage: the limit and the counter. */
export interface TokenBudget {
  budget: number;
  count: (text: string) => number;
}

export const TOKEN_ENCODING = "o200k_base";

let counter: Promise<(text: string) => number> | undefined;

/** The counter, loaded on first use and kept for the process. */
export function tokenCounter(): Promise<(text: string) => number> {
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => {
    const options = { disallowedSpecial: new Set<string>() };
    return (text: string) => m.countTokens(text, options);
  });
  return counter;
}

/** What the budget stage needs for `budgetTokens`; undefined (nothing loaded) when it is unset. */
export async function tokenBudget(budgetTokens: number | undefined): Promise<TokenBudget | undefined> {
  if (budgetTokens === undefined) return undefined;
  return { budget: budgetTokens, count: await tokenCounter() };
}
