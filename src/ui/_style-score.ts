// The health score at the top of the "Style memory" panel (`GET /api/style/score`, docs/STYLE-MEMORY.md
// "The health score"): the 0–100 score, each part's level in words with the counts behind it, and the
// advice, one sentence per part that is not as it should be. The same answer as `lorecards style score`.
import type { StyleScore } from "../api/types.ts";
import { el } from "./_dom.ts";

const READINESS: Record<string, string> = {
  empty: "nothing learned a brief can name yet",
  warming: "warming up",
  ready: "ready",
};

function part(label: string, level: string, detail: string): HTMLElement {
  return el(
    "div",
    { class: `score-part level-${level}` },
    el("dt", {}, label),
    el("dd", {}, el("b", {}, level), ` ${detail}`),
  );
}

/** The score as the panel shows it. */
export function scoreBlock(s: StyleScore): HTMLElement {
  const r = s.readiness;
  return el(
    "section",
    { class: "style-score", "aria-label": "Health" },
    el("h3", {}, `Health: ${s.score}/100`),
    el(
      "dl",
      { class: "score-parts" },
      part(
        "Readiness",
        r.level,
        `(${READINESS[r.level] ?? r.level}: ${r.active} of the ${r.needed} active habits a brief needs to name, ${r.candidates} candidates)`,
      ),
      part(
        "Drift risk",
        s.drift.level,
        `(${s.drift.fading} of ${s.drift.active} active habits unseen for ${s.drift.fading_after_days} days)`,
      ),
      part(
        "Over-imitation risk",
        s.over_imitation.level,
        `(${s.over_imitation.strong} strong habits a model could copy, of ${s.over_imitation.imitable})`,
      ),
      part(
        "The brief",
        s.brief.refresh_recommended ? "refresh" : "up to date",
        `(revision ${s.brief.revision})`,
      ),
    ),
    s.advice.length > 0 ? el("ul", { class: "score-advice" }, ...s.advice.map((a) => el("li", {}, a))) : null,
  );
}
