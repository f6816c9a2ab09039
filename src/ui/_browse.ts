// The left column: search, sort and filters over the vault's cards, the list (_list.ts), the selection
// and the bar that changes the selected cards (_bulk.ts). The list comes in one request and is then
// searched, sorted and filtered in memory, so a keystroke costs no request; the server's search of the
// cards' text (`GET /api/search`) and the facts the list sorts by (`GET /api/facts`) join in when they
// answer, without holding up the first paint.
import type { BrokenItem, CardsAnswer, Facts, Kinds, ListItem, SearchResult } from "../api/types.ts";
import { bulkBar } from "./_bulk.ts";
import { api } from "./_client.ts";
import { $, el } from "./_dom.ts";
import { brokenList, fillChoices } from "./_filters.ts";
import { CardList, type ListGroup } from "./_list.ts";
import {
  activeFilters,
  type Filters,
  NO_FILTERS,
  namedFirst,
  passes,
  type Row,
  rowOf,
  SORTS,
  type Sort,
  sortRows,
  tagsOf,
  wordsOf,
} from "./_query.ts";
import { plural } from "./_words.ts";

export interface BrowseHooks {
  kinds(): Kinds;
  /** Open a card (or restore it, from the archive). */
  open(row: Row): void;
  current(): string | undefined;
  /** The cards' sizes in tokens came (the facts): the open card's header says its row's. */
  sized(): void;
  fail(err: unknown): void;
}

/** How long typing may pause before the server searches the cards' text too. */
const SEARCH_PAUSE_MS = 150;

export class Browse {
  rows: Row[] = [];
  broken: BrokenItem[] = [];
  archived = false;
  private facts?: Facts;
  private sort: Sort = "title";
  private sorted?: { rows: Row[]; sort: Sort; order: Row[] };
  private filters: Filters = { ...NO_FILTERS };
  private query = "";
  private found?: { q: string; cards: Set<string>; snippets: Record<string, string> };
  private selected = new Set<string>();
  private anchor?: string;
  private readonly folded = new Set<string>();
  private readonly list: CardList;
  private readonly bulk: { update(): void };
  private searching?: ReturnType<typeof setTimeout>;
  private shown = 0;

  constructor(private readonly hooks: BrowseHooks) {
    this.list = new CardList($("#card-list"), {
      open: (row) => hooks.open(row),
      select: (row, range) => this.select(row, range),
      selectAll: () => this.selectAll(),
      fold: (kind, collapsed) => {
        if (collapsed) this.folded.add(kind);
        else this.folded.delete(kind);
        this.render();
      },
    });
    this.bulk = bulkBar($("#bulk"), {
      selected: () => this.rows.filter((r) => this.selected.has(r.id)),
      count: () => this.selected.size,
      shown: () => this.shown,
      kinds: () => hooks.kinds().kinds,
      selectAll: () => this.selectAll(),
      clear: () => this.clearSelection(),
      changed: () => this.load(),
    });
    this.controls();
  }

  /** Asks for the list (live cards, or the archive): `load` takes the answer, so the page can ask early. */
  fetch(): Promise<CardsAnswer> {
    return api<CardsAnswer>("GET", `/api/cards${this.archived ? "?archived=1" : ""}`);
  }

  /** Loads the list, then the facts and the text search in the background. */
  async load(asked: Promise<CardsAnswer> = this.fetch()): Promise<void> {
    const list = await asked;
    this.rows = list.cards.map((c) => rowOf(c as ListItem, this.facts?.cards[`${c.kind}/${c.key}`]));
    this.broken = list.broken ?? [];
    const live = new Set(this.rows.map((r) => r.id));
    for (const id of this.selected) if (!live.has(id)) this.selected.delete(id);
    this.render();
    if (this.found) void this.search(this.query);
    if (!this.archived) void this.loadFacts();
  }

  rowOf(id: string): Row | undefined {
    return this.rows.find((r) => r.id === id);
  }

  /** The open card changed: mark it, and bring it into view. */
  markCurrent(): void {
    this.list.refresh({ current: this.hooks.current(), selected: this.selected });
    const id = this.hooks.current();
    if (id) this.list.reveal(id);
  }

  private async loadFacts(): Promise<void> {
    try {
      this.facts = await api<Facts>("GET", "/api/facts");
    } catch (err) {
      return this.hooks.fail(err);
    }
    for (const r of this.rows) r.facts = this.facts?.cards[r.id];
    this.rows = [...this.rows];
    this.fillChoices();
    this.render();
    this.hooks.sized();
  }

  private render(): void {
    const q = {
      words: wordsOf(this.query),
      found: this.found?.q === this.query ? this.found.cards : undefined,
    };
    // Sorted once per list and order, not per keystroke: filtering keeps the order.
    if (this.sorted?.rows !== this.rows || this.sorted.sort !== this.sort)
      this.sorted = { rows: this.rows, sort: this.sort, order: sortRows(this.rows, this.sort) };
    const passing = this.sorted.order.filter((r) => passes(r, this.filters, q));
    const shown = q.words.length > 0 ? namedFirst(passing, this.query) : passing;
    this.shown = shown.length;
    const byKind = Map.groupBy(shown, (r) => r.kind);
    const groups: ListGroup[] = this.hooks
      .kinds()
      .kinds.map((kind) => ({
        kind,
        rows: byKind.get(kind.name) ?? [],
        collapsed: this.folded.has(kind.name),
      }))
      .filter((g) => g.rows.length > 0);
    this.list.set({
      groups,
      archived: this.archived,
      current: this.hooks.current(),
      selected: this.selected,
      words: q.words,
      snippets: q.found ? (this.found?.snippets ?? {}) : {},
    });
    this.status(q.words.length > 0 || activeFilters(this.filters) > 0);
    brokenList($("#broken-list"), this.archived ? [] : this.broken);
    this.bulk.update();
  }

  private status(narrowed: boolean): void {
    const total = this.rows.length;
    const what = this.archived ? "archived card" : "card";
    const text =
      total === 0
        ? this.archived
          ? "The archive is empty."
          : "No cards yet."
        : narrowed
          ? this.shown === 0
            ? "No cards match."
            : `${this.shown.toLocaleString()} of ${plural(total, what)} match`
          : plural(total, what);
    $("#list-status").textContent = text;
    const n = activeFilters(this.filters);
    $("#filters summary").textContent = n > 0 ? `Filters (${n})` : "Filters";
  }

  private select(row: Row, range: boolean): void {
    const ids = this.list.shownIds();
    if (range && this.anchor !== undefined && ids.includes(this.anchor)) {
      const [a, b] = [ids.indexOf(this.anchor), ids.indexOf(row.id)].sort((x, y) => x - y);
      for (const id of ids.slice(a!, b! + 1)) this.selected.add(id);
    } else if (this.selected.has(row.id)) this.selected.delete(row.id);
    else this.selected.add(row.id);
    this.anchor = row.id;
    this.afterSelect();
  }

  private selectAll(): void {
    for (const id of this.list.shownIds()) this.selected.add(id);
    this.afterSelect();
  }

  private clearSelection(): void {
    this.selected.clear();
    this.anchor = undefined;
    this.afterSelect();
  }

  private afterSelect(): void {
    this.list.refresh({ current: this.hooks.current(), selected: this.selected });
    this.bulk.update();
  }

  private async search(q: string): Promise<void> {
    if (wordsOf(q).length === 0) return;
    try {
      const r = await api<SearchResult>("GET", `/api/search?q=${encodeURIComponent(q)}`);
      if (q !== this.query) return;
      this.found = { q, cards: new Set(r.cards), snippets: r.snippets };
      this.render();
    } catch (err) {
      this.hooks.fail(err);
    }
  }

  private controls(): void {
    const filter = $("#filter") as HTMLInputElement;
    filter.addEventListener("input", () => {
      this.query = filter.value;
      this.render();
      clearTimeout(this.searching);
      this.searching = setTimeout(() => void this.search(this.query), SEARCH_PAUSE_MS);
    });
    const sort = $("#sort") as HTMLSelectElement;
    sort.replaceChildren(...Object.entries(SORTS).map(([v, label]) => el("option", { value: v }, label)));
    sort.addEventListener("change", () => {
      this.sort = sort.value as Sort;
      this.render();
    });
    $("#show-archived").addEventListener("change", (e) => {
      this.archived = (e.target as HTMLInputElement).checked;
      this.selected.clear();
      this.load().catch((err) => this.hooks.fail(err));
    });
    $("#filters").addEventListener("change", (e) => {
      const t = e.target as HTMLInputElement | HTMLSelectElement;
      const name = t.name as keyof Filters;
      if (!(name in this.filters)) return;
      (this.filters as unknown as Record<string, unknown>)[name] =
        t instanceof HTMLInputElement && t.type === "checkbox" ? t.checked : t.value;
      this.render();
    });
    $("#clear-filters").addEventListener("click", () => {
      this.filters = { ...NO_FILTERS };
      for (const s of $("#filters").querySelectorAll<HTMLSelectElement>("select")) s.value = "";
      ($("#filters").querySelector('input[type="checkbox"]') as HTMLInputElement).checked = false;
      this.render();
    });
  }

  /** The filters' choices that depend on the vault: kinds, books imported, tags in use. */
  fillChoices(): void {
    fillChoices($("#filters"), {
      kinds: this.hooks.kinds().kinds.map((k) => k.name),
      books: this.facts?.books ?? [],
      tags: tagsOf(this.rows),
    });
  }
}
