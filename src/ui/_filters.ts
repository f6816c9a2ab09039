// The parts of the list column that depend on what the vault holds: the filters' choices (kinds, the
// books cards were imported from, the tags in use) and the card files that cannot be read, listed above
// the cards with the reason (they are skipped by every lookup until fixed).
import type { BrokenItem } from "../api/types.ts";
import { el } from "./_dom.ts";
import { POLICY_WORDS } from "./_words.ts";

export interface Choices {
  kinds: string[];
  books: string[];
  tags: string[];
}

/** Fills each filter's select with its choices, keeping what was chosen when it is still there. */
export function fillChoices(filters: HTMLElement, choices: Choices): void {
  const fill = (name: string, any: string, options: [string, string][]) => {
    const select = filters.querySelector<HTMLSelectElement>(`select[name="${name}"]`)!;
    const was = select.value;
    select.replaceChildren(
      el("option", { value: "" }, any),
      ...options.map(([v, label]) => el("option", { value: v, selected: v === was }, label)),
    );
  };
  fill(
    "kind",
    "Any kind",
    choices.kinds.map((k) => [k, k]),
  );
  fill(
    "policy",
    "Sent any way",
    Object.entries(POLICY_WORDS).map(([v, w]) => [v, w.label]),
  );
  fill("enabled", "Enabled or not", [
    ["on", "Enabled"],
    ["off", "Disabled"],
  ]);
  fill(
    "book",
    "From any book",
    choices.books.map((b) => [b, `From ${b}`]),
  );
  fill(
    "tag",
    "Any tag",
    choices.tags.map((t) => [t, t]),
  );
}

export function brokenList(host: HTMLElement, broken: readonly BrokenItem[]): void {
  if (broken.length === 0) {
    host.replaceChildren();
    return;
  }
  const item = (b: BrokenItem) =>
    el(
      "li",
      { class: "item" },
      el(
        "details",
        {},
        el("summary", {}, b.path),
        el("p", { class: "broken-why" }, b.error, " Fix the file on disk; it is skipped until then."),
      ),
    );
  host.replaceChildren(
    el(
      "section",
      { class: "group broken", "aria-label": "Cards that cannot be read" },
      el("h2", {}, "cannot be read", el("span", { class: "count" }, String(broken.length))),
      el("ul", {}, ...broken.map(item)),
    ),
  );
}
