// The try box at the top: a sentence, and what it would surface (`POST /api/try`): each card with the
// words it fired on (or how it came in otherwise), where it would go, and whether it is sent or why not;
// under it, why each card is or is not in (_why.ts), and the lore switch when it is not `auto`. A name no card covers is offered as a keyword of
// the open card, or as a new card, in one click.

import type { TryResult } from "../api/types.ts";
import type { TryAs } from "./_books.ts";
import { api } from "./_client.ts";
import { $, el } from "./_dom.ts";
import type { EditorTarget } from "./_editor.ts";
import { addKeyword } from "./_form-read.ts";
import { toast } from "./_toast.ts";
import { explainTry } from "./_why.ts";
import { LORE_WORDS, POSITION_WORDS, REASON_WORDS, VIA_WORDS } from "./_words.ts";

export interface TryHooks {
  /** Opens a card; `book` when it is not the vault's own. */
  open(kind: string, key: string, book?: string): void;
  /** The books to read, as "Try as" chooses them (_books.ts). */
  as(): TryAs;
  /** The open card's form, if a card is open. */
  form(): HTMLFormElement | null;
  /** A word was added to the open card's form. */
  edited(): void;
  newCard(kind: string, draft: EditorTarget["draft"]): void;
  fail(err: unknown): void;
}

/** The kind a candidate word's new card gets, by what kind of word it is. */
const KIND_FOR_GROUP = { names: "people", places: "place", aliases: "entry" } as const;

export class TryBox {
  /** The budget tries are made with (the "What goes in each turn" panel sets it); undefined: the tools'. */
  budget: number | undefined;
  private last: { text: string; result: TryResult } | null = null;

  constructor(private readonly hooks: TryHooks) {
    $("#try").addEventListener("submit", (e) => void this.run(e));
  }

  private async run(e: Event): Promise<void> {
    e.preventDefault();
    const text = ($("#try-text") as HTMLInputElement).value.trim();
    if (!text) return;
    try {
      const as = this.hooks.as();
      const result = await api<TryResult>("POST", "/api/try", { text, budget: this.budget, ...as });
      this.last = { text, result };
      this.rerender();
      // The answer is under the box, at the top of the page: bring it into view from wherever one was.
      $("#try-result").scrollIntoView({ block: "nearest" });
      await explainTry($("#try-why"), text, as);
    } catch (err) {
      this.hooks.fail(err);
    }
  }

  /** Draws the last try again (the open card changed: its chips now add to it). */
  rerender(): void {
    if (!this.last) return;
    const hooks = this.hooks;
    renderTry($("#try-result"), this.last.text, this.last.result, {
      open: hooks.open,
      hasOpenCard: () => hooks.form() !== null,
      useWord: (word, group, asNew) => {
        const form = hooks.form();
        if (!asNew && form && addKeyword(form, word)) {
          hooks.edited();
          toast(`Added “${word}” to the keywords. Save to keep it.`);
          return;
        }
        hooks.newCard(KIND_FOR_GROUP[group], { title: word, keywords: [word] });
      },
    });
  }
}

interface TryHandlers {
  open(kind: string, key: string, book?: string): void;
  /** A candidate word was clicked: add it to the open card, or start a new one (`asNew`). */
  useWord(word: string, group: "names" | "places" | "aliases", asNew: boolean): void;
  hasOpenCard(): boolean;
}

function renderTry(box: HTMLElement, text: string, result: TryResult, handlers: TryHandlers): void {
  const rows = result.fired.map((f) =>
    el(
      "li",
      { class: f.in_budget ? "fired in" : "fired out" },
      el(
        "button",
        { type: "button", class: "link", onclick: () => handlers.open(f.kind, f.key, f.book) },
        f.title,
      ),
      el("span", { class: "tag" }, f.kind),
      f.book ? el("span", { class: "tag book", title: "the book it is in" }, f.book) : null,
      f.hits.length > 0
        ? el("span", { class: "on" }, "on ", el("b", {}, f.hits.join(", ")))
        : el("span", { class: "on" }, VIA_WORDS[f.via] ?? f.via),
      f.placement.position
        ? el(
            "span",
            { class: "where", title: `position: ${f.placement.position}` },
            POSITION_WORDS[f.placement.position] ?? f.placement.position,
          )
        : null,
      el(
        "span",
        { class: "budget", title: f.reason ? `reason: ${f.reason}` : undefined },
        f.in_budget
          ? `sent · ${f.chars} characters`
          : `not sent: ${REASON_WORDS[f.reason ?? ""] ?? f.reason ?? "left out"} · ${f.chars} characters`,
      ),
    ),
  );
  const summary =
    result.fired.length === 0
      ? `Nothing would surface for “${text}”.`
      : `${result.injected.length} of ${result.fired.length} would be sent (${result.injected_chars} characters)` +
        (result.truncated ? `; ${result.truncated} left out by the budget.` : ".");
  const groups = (["names", "places", "aliases"] as const).flatMap((g) =>
    result.candidates[g].map((w) => ({ w, g })),
  );
  const open = handlers.hasOpenCard();
  const chips = groups.map(({ w, g }) =>
    el(
      "span",
      { class: "chip" },
      el(
        "button",
        {
          type: "button",
          class: "chip-main",
          title: open ? `Add “${w}” as a keyword of the open card` : `Start a new card for “${w}”`,
          onclick: () => handlers.useWord(w, g, false),
        },
        `+ ${w}`,
      ),
      open
        ? el(
            "button",
            {
              type: "button",
              class: "chip-new",
              "aria-label": `New card for ${w}`,
              onclick: () => handlers.useWord(w, g, true),
            },
            "new",
          )
        : null,
    ),
  );
  const broken = result.broken ?? [];
  const lore = LORE_WORDS[result.lore];
  const parts: (HTMLElement | null)[] = [
    el("p", { class: "summary" }, summary),
    lore ? el("p", { class: "try-lore", title: "lore: in settings.yaml" }, `Lore switch ${lore}.`) : null,
    result.books ? el("p", { class: "books-read" }, `Books read: ${result.books.join(", ")}.`) : null,
    broken.length
      ? el(
          "p",
          { class: "broken-note" },
          `Skipped ${broken.length} card file(s) that cannot be read: ${broken.map((b) => b.path).join(", ")}.`,
        )
      : null,
    rows.length ? el("ol", { class: "fired-list" }, ...rows) : null,
    chips.length
      ? el(
          "div",
          { class: "candidates" },
          el("span", { class: "label" }, open ? "No card yet — add as keyword:" : "No card yet:"),
          ...chips,
        )
      : null,
  ];
  box.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  box.hidden = false;
}
