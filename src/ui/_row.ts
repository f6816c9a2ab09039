// One card's row in the list (_list.ts): the selection tick, the title and a line under it (the search's
// snippet, else the card's first line) with the search's words marked, and what sets it apart: disabled,
// when it is sent, warnings, its size. The row's accessible name is its text, all of it, so what a
// screen reader says is what the row shows. And what a click or a key on a row does.
import { el, marked } from "./_dom.ts";
import type { ListHandlers, ListModel } from "./_list.ts";
import type { Row } from "./_query.ts";
import { POLICY_WORDS, plural } from "./_words.ts";

export function rowNode(row: Row, model: Pick<ListModel, "words" | "snippets" | "archived">): HTMLElement {
  const { words, snippets, archived } = model;
  const sub = snippets[row.id] ?? row.preview ?? (row.keywords ?? []).join(", ");
  const tokens = row.facts?.tokens;
  const size =
    tokens !== undefined ? `≈${plural(tokens, "token")}` : `${row.chars?.toLocaleString() ?? 0} chars`;
  const badges = [
    row.enabled === false ? el("span", { class: "badge off" }, "disabled") : null,
    row.policy && row.policy !== "automatic"
      ? el(
          "span",
          { class: "badge", title: POLICY_WORDS[row.policy]?.hint },
          POLICY_WORDS[row.policy]?.short ?? row.policy,
        )
      : null,
    row.warnings > 0
      ? el(
          "span",
          { class: "badge warn", title: "values that fell back to a default: see Health check" },
          `⚠ ${row.warnings}`,
        )
      : null,
    archived
      ? el("span", { class: "badge" }, "Restore")
      : el(
          "span",
          {
            class: "size",
            title:
              tokens !== undefined ? "its text's size in tokens, estimated" : "its text's size in characters",
          },
          size,
        ),
  ];
  return el(
    "div",
    { role: "option", class: "row", tabindex: -1, "data-id": row.id },
    archived ? null : el("span", { class: "tick", "aria-hidden": "true" }),
    el(
      "span",
      { class: "row-main" },
      el("span", { class: "row-title" }, ...marked(row.title, words)),
      el("span", { class: "row-sub" }, ...marked(sub, words)),
    ),
    el("span", { class: "row-meta" }, ...badges),
  );
}

export const OPTION = '[role="option"]';

/** What the list's keys and clicks need of it. */
export interface ListKeys {
  rowOf(node: HTMLElement): Row | undefined;
  archived(): boolean;
  handlers: ListHandlers;
  /** Focus the card `step` (a key name below) away from `row`. */
  move(row: Row, step: string): void;
}

const STEPS: Record<string, (at: number, count: number, page: number) => number> = {
  ArrowDown: (at) => at + 1,
  ArrowUp: (at) => at - 1,
  Home: () => 0,
  End: (_at, count) => count - 1,
  PageDown: (at, _count, page) => at + page,
  PageUp: (at, _count, page) => at - page,
};

/** Where a step key takes the focus from position `at` of `count` rows, `page` rows a screen. */
export function stepped(key: string, at: number, count: number, page: number): number {
  return Math.min(Math.max(STEPS[key]!(at, count, page), 0), count - 1);
}

/** A click opens the card; on its tick, or with Shift, Ctrl or Cmd, it selects it instead. */
export function listClick(e: MouseEvent, keys: ListKeys): void {
  const node = (e.target as HTMLElement).closest<HTMLElement>(OPTION);
  const row = node && keys.rowOf(node);
  if (!row) return;
  const ticked = (e.target as HTMLElement).closest(".tick") !== null;
  if (!keys.archived() && (ticked || e.shiftKey || e.ctrlKey || e.metaKey))
    keys.handlers.select(row, e.shiftKey);
  else keys.handlers.open(row);
}

/** Enter opens, Space selects (Shift+Space a range), Ctrl+A selects all shown; the rest move the focus. */
export function listKey(e: KeyboardEvent, keys: ListKeys): void {
  const node = (e.target as HTMLElement).closest<HTMLElement>(OPTION);
  const row = node && keys.rowOf(node);
  if (!row || e.altKey) return;
  const archived = keys.archived();
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "a" && !archived) {
    e.preventDefault();
    keys.handlers.selectAll();
  } else if (e.ctrlKey || e.metaKey) {
    return;
  } else if (e.key === "Enter" || (e.key === " " && archived)) {
    e.preventDefault();
    keys.handlers.open(row);
  } else if (e.key === " ") {
    e.preventDefault();
    keys.handlers.select(row, e.shiftKey);
  } else if (e.key in STEPS) {
    e.preventDefault();
    keys.move(row, e.key);
  }
}
