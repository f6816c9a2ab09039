// The card list: a heading per kind that folds its cards away, and under each a WAI-ARIA listbox (APG
// "Listbox", multi-select) of its cards. Only the rows on screen exist in the page: every row has the
// same height, so where any card sits is arithmetic, and scrolling ten thousand cards moves a few dozen
// nodes. The list is one Tab stop across all kinds (the open card, else the last one focused): arrows,
// Home/End and PageUp/PageDown move across the kinds, Enter opens, Space selects (Shift+Space selects
// the range from the last one picked), Ctrl+A selects every card shown. `aria-setsize`/`aria-posinset`
// tell a screen reader where a row is in its kind when the rows around it are not in the page.
import type { KindInfo } from "../api/types.ts";
import { arrange, el } from "./_dom.ts";
import { Layout, type Placed, ROW_H } from "./_layout.ts";
import type { Row } from "./_query.ts";
import { type ListKeys, listClick, listKey, OPTION, rowNode, stepped } from "./_row.ts";
import { kindNoun } from "./_words.ts";

export interface ListGroup {
  kind: KindInfo;
  rows: Row[];
  collapsed: boolean;
}

export interface ListModel {
  groups: ListGroup[];
  archived: boolean;
  /** The card open in the editor (`kind/key`). */
  current: string | undefined;
  selected: ReadonlySet<string>;
  /** The search's words, marked in titles and snippets. */
  words: string[];
  snippets: Readonly<Record<string, string>>;
}

export interface ListHandlers {
  open(row: Row): void;
  select(row: Row, range: boolean): void;
  selectAll(): void;
  fold(kind: string, collapsed: boolean): void;
}

/** Rows made beyond each edge of the screen, so a fast scroll shows no gap. */
const OVERSCAN = 8;

export class CardList {
  private model: ListModel = {
    groups: [],
    archived: false,
    current: undefined,
    selected: new Set(),
    words: [],
    snippets: {},
  };
  private layout = new Layout([]);
  /** The one Tab stop. */
  private stop: string | undefined;
  private readonly space = el("div", { class: "list-space" });
  private readonly heads = new Map<string, HTMLElement>();
  private readonly boxes = new Map<string, HTMLElement>();
  private readonly options = new Map<string, HTMLElement>();
  private frame = 0;

  constructor(
    private readonly host: HTMLElement,
    private readonly handlers: ListHandlers,
  ) {
    host.replaceChildren(this.space);
    host.addEventListener("scroll", () => this.schedule(), { passive: true });
    window.addEventListener("resize", () => this.schedule());
    const keys: ListKeys = {
      rowOf: (node) => this.rowOf(node),
      archived: () => this.model.archived,
      handlers,
      move: (row, step) => {
        const page = Math.max(1, Math.floor(this.host.clientHeight / ROW_H) - 1);
        const { at, order } = this.layout.spots();
        const to = order[stepped(step, at.get(row.id)!.flat, order.length, page)];
        if (to) this.reveal(to.id, true);
      },
    };
    host.addEventListener("keydown", (e) => listKey(e, keys));
    host.addEventListener("click", (e) => listClick(e, keys));
    host.addEventListener("focusin", (e) => {
      const id = (e.target as HTMLElement).closest<HTMLElement>(OPTION)?.dataset.id;
      if (id !== undefined && id !== this.stop) {
        this.stop = id;
        this.markStop();
      }
    });
  }

  /** Show a new model: what passes the search and filters, in order, with the selection. */
  set(model: ListModel): void {
    this.model = model;
    this.layout = new Layout(model.groups);
    this.space.style.height = `${this.layout.height}px`;
    const { layout } = this;
    if (this.stop === undefined || !layout.find(this.stop))
      this.stop = model.current && layout.find(model.current) ? model.current : layout.firstShown();
    // Rows change with the model: drop the made ones (the focused one is made again and refocused).
    const focused = this.focusedId();
    for (const node of this.options.values()) node.remove();
    this.options.clear();
    this.render();
    if (focused !== undefined) this.options.get(focused)?.focus({ preventScroll: true });
  }

  /** The selection or the open card changed: mark the rows in the page, nothing else. */
  refresh(model: Pick<ListModel, "current" | "selected">): void {
    this.model = { ...this.model, ...model };
    for (const [id, node] of this.options) this.mark(node, id);
  }

  /** Scroll a card into view (the nearest edge), and focus it when asked. */
  reveal(id: string, focus = false): void {
    const place = this.layout.find(id);
    if (!place) return;
    const top = place.group.rowsTop + place.index * ROW_H;
    if (top < this.host.scrollTop) this.host.scrollTop = top - 4;
    else if (top + ROW_H > this.host.scrollTop + this.host.clientHeight)
      this.host.scrollTop = top + ROW_H - this.host.clientHeight + 4;
    if (focus) this.stop = id;
    this.render();
    if (focus) this.options.get(id)?.focus({ preventScroll: true });
  }

  /** Ids of every card shown (folded kinds included), in order. */
  shownIds(): string[] {
    return this.model.groups.flatMap((g) => g.rows.map((r) => r.id));
  }

  private focusedId(): string | undefined {
    const a = document.activeElement as HTMLElement | null;
    return a && this.host.contains(a) ? a.closest<HTMLElement>(OPTION)?.dataset.id : undefined;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Make the headings and rows on screen (and the Tab stop's row, wherever it is); drop the rest. */
  private render(): void {
    const from = this.host.scrollTop - OVERSCAN * ROW_H;
    const to = this.host.scrollTop + Math.max(this.host.clientHeight, 400) + OVERSCAN * ROW_H;
    const keep = this.stop ? this.layout.find(this.stop) : undefined;
    const wanted: HTMLElement[] = [];
    const rowsWanted = new Set<string>();
    for (const p of this.layout.placed) {
      const kind = p.group.kind.name;
      const holdsStop = keep?.group === p;
      if ((p.bottom < from || p.top > to) && !holdsStop) continue;
      wanted.push(this.head(p));
      if (p.group.collapsed) continue;
      const first = Math.max(0, Math.floor((from - p.rowsTop) / ROW_H));
      const last = Math.min(p.group.rows.length - 1, Math.floor((to - p.rowsTop) / ROW_H));
      const indexes = new Set<number>();
      for (let i = first; i <= last; i++) indexes.add(i);
      if (holdsStop) indexes.add(keep.index);
      if (indexes.size === 0) continue;
      const box = this.box(p);
      const nodes = [...indexes]
        .sort((a, b) => a - b)
        .map((i) => this.option(p.group.rows[i]!, i, p.group.rows.length));
      for (const n of nodes) rowsWanted.add(n.dataset.id!);
      arrange(box, nodes);
      wanted.push(box);
      this.boxes.set(kind, box);
    }
    for (const [id, node] of this.options) {
      if (!rowsWanted.has(id)) {
        node.remove();
        this.options.delete(id);
      }
    }
    arrange(this.space, wanted);
  }

  private head(p: Placed): HTMLElement {
    const kind = p.group.kind.name;
    let node = this.heads.get(kind);
    if (!node) {
      node = el("div", { class: "group-head" });
      this.heads.set(kind, node);
    }
    const count = p.group.rows.length;
    const label = `${kind} (${count.toLocaleString()})`;
    node.style.top = `${p.top}px`;
    // Made again only when it changed: the fold button may have the focus.
    const sig = `${label}|${p.group.collapsed}`;
    if (node.dataset.sig === sig) return node;
    node.dataset.sig = sig;
    node.replaceChildren(
      el(
        "button",
        {
          type: "button",
          id: `kind-${kind}`,
          class: "fold",
          "aria-expanded": p.group.collapsed ? "false" : "true",
          title: p.group.collapsed
            ? `Show the ${kindNoun(kind)} cards`
            : `Fold the ${kindNoun(kind)} cards away`,
          onclick: () => this.handlers.fold(kind, !p.group.collapsed),
        },
        el("span", { class: "chev", "aria-hidden": "true" }),
        label,
      ),
    );
    return node;
  }

  private box(p: Placed): HTMLElement {
    const kind = p.group.kind.name;
    let node = this.boxes.get(kind);
    if (!node) {
      node = el("div", {
        role: "listbox",
        class: "group-rows",
        "aria-labelledby": `kind-${kind}`,
        "aria-multiselectable": this.model.archived ? null : "true",
      });
    }
    node.style.top = `${p.rowsTop}px`;
    node.style.height = `${p.group.rows.length * ROW_H}px`;
    return node;
  }

  private option(row: Row, index: number, size: number): HTMLElement {
    let node = this.options.get(row.id);
    if (!node) {
      node = rowNode(row, this.model);
      this.options.set(row.id, node);
    }
    node.setAttribute("aria-posinset", String(index + 1));
    node.setAttribute("aria-setsize", String(size));
    node.style.top = `${index * ROW_H}px`;
    this.mark(node, row.id);
    return node;
  }

  private mark(node: HTMLElement, id: string): void {
    const selected = this.model.selected.has(id);
    node.setAttribute("aria-selected", selected ? "true" : "false");
    if (id === this.model.current) node.setAttribute("aria-current", "true");
    else node.removeAttribute("aria-current");
    node.tabIndex = id === this.stop ? 0 : -1;
  }

  private markStop(): void {
    for (const [id, node] of this.options) node.tabIndex = id === this.stop ? 0 : -1;
  }

  private rowOf(node: HTMLElement): Row | undefined {
    const place = this.layout.spots().at.get(node.dataset.id ?? "");
    return place ? place.group.group.rows[place.index] : undefined;
  }
}
