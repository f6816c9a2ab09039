// The "What goes in each turn" panel (`GET /api/budget`): the budget the cards that come up share, what
// the always-on cards send before anyone says a word (whole, whatever the budget) and a warning when
// that alone is large or does not fit; plus the control the try box uses, a budget to try a sentence
// with (the real one is the gateway's and the hook's `--budget`, and `budget_tokens` in settings.yaml,
// which the page never writes).
import type { Budget } from "../api/types.ts";
import { api } from "./_client.ts";
import { el } from "./_dom.ts";
import { plural } from "./_words.ts";

export interface BudgetHooks {
  open(kind: string, key: string): void;
  /** The budget the try box sends (undefined: the tools' own). */
  setTryBudget(chars: number | undefined): void;
}

/** What the always-on cards cost every turn, and what of it is not sent, in a sentence. */
export function alwaysOnWarning(b: Budget): string {
  const a = b.always;
  const cost =
    `The ${plural(a.cards.length, "always-on card")} send about ${plural(a.tokens, "token")} ` +
    `(${plural(a.chars, "character")}) every turn, before anyone says a word`;
  if (a.left_out > 0) return `${cost}; ${a.left_out} of them do not fit the budget and are not sent.`;
  return (
    `${cost}: a model pays for them on every turn. A book's overview cards set to ` +
    "“When its words come up” are sent only when they are named."
  );
}

function alwaysList(b: Budget, hooks: BudgetHooks): HTMLElement {
  return el(
    "ul",
    { class: "always-list" },
    ...b.always.cards.map((c) =>
      el(
        "li",
        { class: c.in_budget ? "" : "out" },
        el("button", { type: "button", class: "link", onclick: () => hooks.open(c.kind, c.key) }, c.title),
        el("span", { class: "muted" }, ` ≈${plural(c.tokens, "token")}${c.in_budget ? "" : " · not sent"}`),
      ),
    ),
  );
}

export async function loadBudget(body: HTMLElement, hooks: BudgetHooks): Promise<void> {
  const b = await api<Budget>("GET", "/api/budget");
  const a = b.always;
  const warn = a.left_out > 0 || a.large;
  const input = el("input", {
    type: "number",
    id: "try-budget",
    min: 0,
    step: 100,
    placeholder: String(b.budget),
    "aria-describedby": "try-budget-hint",
  });
  input.addEventListener("change", () =>
    hooks.setTryBudget(input.value === "" ? undefined : Number(input.value)),
  );
  body.replaceChildren(
    el(
      "p",
      {},
      `Each turn, the cards that come up share a budget of ${plural(b.budget, "character")}`,
      b.budget_tokens !== null
        ? ` and ${plural(b.budget_tokens, "token")} (budget_tokens in settings.yaml)`
        : "",
      ". The card closest to what was said always goes in; the rest go in while they fit. Always-on cards are sent whole, outside it.",
    ),
    a.cards.length === 0
      ? el("p", { class: "muted" }, "No card is always on (context: always).")
      : el(
          "div",
          { class: warn ? "banner warn" : "" },
          el(
            "p",
            {},
            warn
              ? alwaysOnWarning(b)
              : `${plural(a.cards.length, "always-on card")} send about ${plural(a.tokens, "token")} every turn.`,
          ),
          alwaysList(b, hooks),
        ),
    el(
      "div",
      { class: "field" },
      el("label", { for: "try-budget" }, "Budget for the try box (characters)"),
      input,
      el(
        "small",
        { class: "hint", id: "try-budget-hint" },
        "What-if only: the gateway and the hook take theirs from --budget.",
      ),
    ),
  );
}
