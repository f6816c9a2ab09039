// The "What goes in each turn" panel (`GET /api/budget`): the budget a turn's cards share, what the
// always-on cards take of it before anyone says a word, and which of them do not fit; plus the control
// the try box uses, a budget to try a sentence with (the real one is the gateway's and the hook's
// `--budget`, and `budget_tokens` in settings.yaml, which the page never writes).
import type { Budget } from "../api/types.ts";
import { api } from "./_client.ts";
import { el } from "./_dom.ts";
import { plural } from "./_words.ts";

export interface BudgetHooks {
  open(kind: string, key: string): void;
  /** The budget the try box sends (undefined: the tools' own). */
  setTryBudget(chars: number | undefined): void;
}

export async function loadBudget(body: HTMLElement, hooks: BudgetHooks): Promise<void> {
  const b = await api<Budget>("GET", "/api/budget");
  const always = b.always;
  const over = always.left_out > 0;
  const share = b.budget > 0 ? Math.min(100, Math.round((always.chars / b.budget) * 100)) : 100;
  const meter = el("meter", {
    min: 0,
    max: b.budget,
    value: Math.min(always.chars, b.budget),
    "aria-label": "Always-on cards' share of the budget",
  });
  const input = el("input", {
    type: "number",
    min: 0,
    step: 100,
    value: "",
    placeholder: String(b.budget),
    "aria-describedby": "try-budget-hint",
  });
  input.id = "try-budget";
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
      ". The card closest to what was said always goes in; the rest go in while they fit.",
    ),
    always.cards.length === 0
      ? el(
          "p",
          { class: "muted" },
          "No card is always on (context: always): the whole budget is for what comes up.",
        )
      : el(
          "div",
          { class: over ? "banner warn" : "" },
          el(
            "p",
            {},
            `${plural(always.cards.length, "always-on card")} take ${plural(always.chars, "character")} every turn`,
            b.budget > 0 ? ` (${share}% of the budget)` : "",
            over ? `: ${plural(always.left_out, "of them", "of them")} do not fit and are not sent.` : ".",
          ),
          meter,
          el(
            "ul",
            { class: "always-list" },
            ...always.cards.map((c) =>
              el(
                "li",
                { class: c.in_budget ? "" : "out" },
                el(
                  "button",
                  { type: "button", class: "link", onclick: () => hooks.open(c.kind, c.key) },
                  c.title,
                ),
                el(
                  "span",
                  { class: "muted" },
                  ` ${plural(c.chars, "character")}${c.in_budget ? "" : " · not sent"}`,
                ),
              ),
            ),
          ),
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
