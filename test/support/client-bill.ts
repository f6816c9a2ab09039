/**
 * What the fake upstream billed a client, and what `stats` kept of it: the two sides of "stats equal to
 * the bill" in the live client tests.
 */
import type { Exchange } from "./client-replay.ts";
import { vaultStore } from "./state.ts";
import { until } from "./wait.ts";

export interface Totals {
  turns: number;
  input: number;
  output: number;
  requests: number;
}

/**
 * What the fake upstream billed in one answer, read the way each API reports it (its last report in a
 * stream): Gemini's `promptTokenCount` and `candidatesTokenCount`, Chat Completions' `prompt_tokens`
 * and `completion_tokens`, Ollama's `prompt_eval_count` and `eval_count`.
 */
export function billIn(answer: string): { input: number; output: number } {
  const last = (name: string) => {
    const all = [...answer.matchAll(new RegExp(`"${name}":(\\d+)`, "g"))];
    return Number(all.at(-1)?.[1] ?? 0);
  };
  if (answer.includes('"promptTokenCount"'))
    return { input: last("promptTokenCount"), output: last("candidatesTokenCount") };
  if (answer.includes('"prompt_eval_count"'))
    return { input: last("prompt_eval_count"), output: last("eval_count") };
  return { input: last("prompt_tokens"), output: last("completion_tokens") };
}

/** What the upstream billed for these requests, as `turns` turns of one conversation. */
export function billOf(xs: readonly Exchange[], turns: number): Totals {
  const billed = xs.map((x) => billIn(x.upstream?.answer ?? ""));
  return {
    turns,
    input: billed.reduce((n, b) => n + b.input, 0),
    output: billed.reduce((n, b) => n + b.output, 0),
    requests: xs.length,
  };
}

/**
 * The vault's conversation that holds `want`'s input tokens, as `stats` keeps it (or every
 * conversation's totals, when none does), once it holds them: usage is stored just after each answer
 * ends, so this waits for what the store shows rather than for a time.
 */
export async function storedTotals(vault: string, want: Totals): Promise<Totals | Totals[]> {
  const store = await vaultStore(vault);
  try {
    const stored = async () => {
      const conversations = await store.conversations(20);
      const per = await Promise.all(conversations.map((c) => store.turns(c.id, 100)));
      const totals = per.map((turns) => ({
        turns: turns.length,
        input: turns.reduce((n, t) => n + (t.usage ? t.usage.uncached + t.usage.cacheRead : 0), 0),
        output: turns.reduce((n, t) => n + (t.usage?.output ?? 0), 0),
        requests: turns.reduce((n, t) => n + (t.requests ?? (t.usage ? 1 : 0)), 0),
      }));
      return totals.find((t) => t.input === want.input) ?? totals;
    };
    await until(async () => Bun.deepEquals(await stored(), want), "the usage of every answer stored");
    return await stored();
  } finally {
    await store.close();
  }
}
