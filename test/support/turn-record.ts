// A conversation's turn as the gateway records it (state/ TurnRecord), for tests of what reads them:
// the API's conversations and the editor's door. Only what a test says differs from a plain turn.
import type { SentBlock, TurnRecord } from "../../src/state/types.ts";

export function turnRecord(
  conversation: string,
  turn: number,
  blocks: SentBlock[],
  extra: Partial<TurnRecord> = {},
): TurnRecord {
  const chars = blocks.reduce((n, b) => n + b.text.length, 0);
  return {
    conversation,
    turn,
    at: Date.UTC(2026, 8, 13, 10, turn),
    surface: "gateway",
    api: "openai",
    blocks,
    replayedChars: 0,
    leftOut: [],
    promptChars: 100 + chars,
    counterfactual: { promptChars: 100 + chars, cachedChars: 0 },
    sharedChars: 0,
    ...extra,
  };
}
