// The documented JSON shape of a recall result (`try --json`, `POST /api/try`): snake_case fields.
import type { FiredCard, RecallResult } from "./types.ts";

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
      verdict: f.verdict,
      reason: f.reason ?? null,
      via: f.via,
      policy: f.policy,
      placement: placementJson(f.placement),
    })),
    injected: result.injected,
    truncated: result.truncated,
    injected_chars: result.injectedChars,
    left_out: (result.leftOut ?? []).map((f) => ({
      key: f.key,
      kind: f.kind,
      title: f.title,
      reason: f.reason ?? null,
      chars: f.chars,
    })),
    context: result.context,
    candidates: result.candidates,
    broken: result.broken,
  };
}

/** Always the three fields, null where the card leaves the choice to the surface. */
function placementJson(p: FiredCard["placement"] | undefined) {
  return { position: p?.position ?? null, depth: p?.depth ?? null, role: p?.role ?? null };
}
