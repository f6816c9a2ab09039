// The card list on the left. It is one WAI-ARIA listbox (APG "Listbox" pattern) with a group per kind,
// and a single Tab stop: only one option has tabindex 0 (the open card, else the last one focused,
// else the first), arrows, Home/End and PageUp/PageDown move focus across the kind groups, Enter or
// Space opens the card, and Tab leaves. Rows off screen stay unrendered (`content-visibility: auto` in
// style.css) until scrolled to; focusing one renders it and scrolls it into view.
import { el, nextId } from "./_dom.ts";
import type { BrokenItem, KindInfo, ListItem } from "./_types.ts";

export interface CardRef {
  kind: string;
  key: string;
}

export interface ListView {
  kinds: KindInfo[];
  cards: ListItem[];
  broken: BrokenItem[];
  archived: boolean;
  /** The filter box's text. */
  filter: string;
  current: CardRef | undefined;
  /** Open a card, or restore it when the list shows the archive. */
  pick: (item: ListItem) => void;
}

const OPTION = '[role="option"]';

function optionNode(c: ListItem, view: ListView): HTMLElement {
  const selected = !c.archived && c.kind === view.current?.kind && c.key === view.current?.key;
  // Named by the title alone; the preview is read after it as the description.
  const id = nextId("card");
  const item = el(
    "div",
    {
      role: "option",
      class: "open",
      tabindex: -1,
      "data-kind": c.kind,
      "data-key": c.key,
      "aria-selected": selected ? "true" : "false",
      "aria-label": c.archived ? `Restore ${c.title}` : null,
      "aria-labelledby": c.archived ? null : `${id}-t`,
      "aria-describedby": c.archived ? null : `${id}-p`,
      onclick: () => view.pick(c),
    },
    el("span", { class: "item-title", id: `${id}-t` }, c.title),
    c.archived
      ? el("span", { class: "restore", "aria-hidden": "true" }, "Restore")
      : el("span", { class: "item-preview", id: `${id}-p` }, c.preview || (c.keywords ?? []).join(", ")),
  );
  const classes = ["item", c.archived ? "archived" : "", c.enabled === false ? "off" : ""];
  return el("li", { class: classes.filter(Boolean).join(" "), role: "none" }, item);
}

/** Draw the list into `host`, keeping its one Tab stop on the card it was on when it can. */
export function renderCardList(host: HTMLElement, view: ListView): void {
  const before = host.querySelector<HTMLElement>(`${OPTION}[tabindex="0"]`)?.dataset;
  const q = view.filter.trim().toLowerCase();
  const shown = view.cards.filter(
    (c) =>
      !q || c.title.toLowerCase().includes(q) || (c.keywords ?? []).some((k) => k.toLowerCase().includes(q)),
  );
  const groups = view.kinds
    .map((k) => ({ kind: k, items: shown.filter((c) => c.kind === k.name) }))
    .filter((g) => g.items.length > 0);
  const broken = view.archived ? null : brokenGroup(view.broken);
  if (groups.length === 0) {
    const empty = el("p", { class: "muted" }, view.archived ? "The archive is empty." : "No cards match.");
    host.replaceChildren(...(broken ? [broken, empty] : [empty]));
    return;
  }
  const listbox = el(
    "div",
    { role: "listbox", class: "cards", "aria-label": view.archived ? "Archived cards" : "Cards" },
    ...groups.map((g) => {
      const id = `kind-${g.kind.name}`;
      return el(
        "section",
        { class: "group", role: "none" },
        // Hidden from the tree (a listbox holds only groups and options) but still the group's name.
        el(
          "h2",
          { id, "aria-hidden": "true" },
          g.kind.name,
          el("span", { class: "count" }, String(g.items.length)),
        ),
        el("ul", { role: "group", "aria-labelledby": id }, ...g.items.map((c) => optionNode(c, view))),
      );
    }),
  );
  host.replaceChildren(...(broken ? [broken] : []), listbox);
  const stop =
    (view.current && find(listbox, view.current)) ??
    (before?.kind !== undefined ? find(listbox, { kind: before.kind, key: before.key ?? "" }) : null) ??
    listbox.querySelector<HTMLElement>(OPTION);
  if (stop) stop.tabIndex = 0;
}

function find(listbox: Element, ref: CardRef): HTMLElement | null {
  const selector = `${OPTION}[data-kind="${CSS.escape(ref.kind)}"][data-key="${CSS.escape(ref.key)}"]`;
  return listbox.querySelector<HTMLElement>(selector);
}

/** Card files that could not be parsed: skipped by every lookup until fixed, so they are shown first. */
function brokenGroup(broken: BrokenItem[]): HTMLElement | null {
  if (broken.length === 0) return null;
  return el(
    "section",
    { class: "group broken", "aria-label": "Cards that cannot be read" },
    el("h2", {}, "cannot be read", el("span", { class: "count" }, String(broken.length))),
    el(
      "ul",
      {},
      ...broken.map((b) =>
        el(
          "li",
          { class: "item" },
          el(
            "details",
            {},
            el("summary", {}, b.path),
            el("p", { class: "broken-why" }, b.error, " Fix the file on disk; it is skipped until then."),
          ),
        ),
      ),
    ),
  );
}

/** Mark the open card as the selected option without rebuilding the list (it can hold thousands). */
export function markCurrent(host: HTMLElement, current: CardRef | undefined): void {
  host.querySelector(`${OPTION}[aria-selected="true"]`)?.setAttribute("aria-selected", "false");
  const option = current && find(host, current);
  if (!option) return;
  option.setAttribute("aria-selected", "true");
  moveStop(host, option);
}

function moveStop(host: HTMLElement, to: HTMLElement): void {
  const from = host.querySelector<HTMLElement>(`${OPTION}[tabindex="0"]`);
  if (from && from !== to) from.tabIndex = -1;
  to.tabIndex = 0;
}

/** Rows that fit in what scrolls the list (the side column, or the window on a phone), less one. */
function pageSize(option: HTMLElement): number {
  const side = option.closest<HTMLElement>(".side");
  const scrolls = side && side.scrollHeight > side.clientHeight;
  const height = scrolls ? side.clientHeight : window.innerHeight;
  return Math.max(1, Math.floor(height / Math.max(option.offsetHeight, 1)) - 1);
}

const STEPS: Record<string, (at: number, count: number, page: number) => number> = {
  ArrowDown: (at) => at + 1,
  ArrowUp: (at) => at - 1,
  Home: () => 0,
  End: (_, count) => count - 1,
  PageDown: (at, _, page) => at + page,
  PageUp: (at, _, page) => at - page,
};

/** Wire the keys and the roving Tab stop once; the list may be redrawn any number of times after. */
export function listKeys(host: HTMLElement): void {
  host.addEventListener("focusin", (e) => {
    const target = e.target as HTMLElement;
    if (target.matches(OPTION)) moveStop(host, target);
  });
  host.addEventListener("keydown", (e) => {
    const option = (e.target as HTMLElement).closest<HTMLElement>(OPTION);
    if (!option || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      option.click();
      return;
    }
    const step = STEPS[e.key];
    if (!step) return;
    e.preventDefault();
    const all = [...host.querySelectorAll<HTMLElement>(OPTION)];
    const at = step(all.indexOf(option), all.length, pageSize(option));
    const to = all[Math.min(Math.max(at, 0), all.length - 1)]!;
    moveStop(host, to);
    // Focus renders a row skipped by content-visibility; then bring it just into view. Rows passed on
    // the way get their real height only once laid out, which can push the target out again, so it is
    // brought into view once more on the next frame.
    to.focus({ preventScroll: true });
    to.scrollIntoView({ block: "nearest" });
    requestAnimationFrame(() => to.scrollIntoView({ block: "nearest" }));
  });
}
