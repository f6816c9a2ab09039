// The documented JSON shape of a recall result (`try --json`, `POST /api/try`): snake_case fields.
import type { RecallResult } from "./types.ts";

/** The `try --json` shape: snake_case, as the README documents it. */
export function recallJson(result: RecallResult) {
  return {
    fired: result.fired.map((f) => ({
      key: f.key,
      kind: f.kind,
      title: f.title,
      score: f.score,
      hits: f.hits,
      chars: f.chars,
      in_budget: f.inBudget,
    })),
    injected: result.injected,
    truncated: result.truncated,
    injected_chars: result.injectedChars,
    context: result.context,
    candidates: result.candidates,
    broken: result.broken,
  };
}
