// The editor page: the cards on the left (search, sort, filters, selection: _browse.ts), the form on the
// right, the try box on top, the panels below, feedback in toasts that stay in view. Each card has an
// address (`#/people/Alice`, _route.ts), so Back returns to the list. Plain DOM; the state of the page
// is the object below, and everything shown comes from the API.
import type { Archived, CardData, Kinds, Reverted } from "../api/types.ts";
import { loadShelf, Shelf } from "./_books.ts";
import { Browse } from "./_browse.ts";
import { loadBudget } from "./_budget.ts";
import { adoptTokenFromUrl, api, currentBook, isApiError, path } from "./_client.ts";
import { $, el, linkAppAssets } from "./_dom.ts";
import { loadConversations } from "./_door.ts";
import {
  alertInForm,
  buildEditor,
  conflictInForm,
  type EditorTarget,
  sizeInForm,
  warnInForm,
} from "./_editor.ts";
import { draftOf } from "./_form-read.ts";
import { loadCardHealth } from "./_health.ts";
import { type HistoryHooks, loadChanges, loadHistory } from "./_history.ts";
import { buildBooks, guardDrops } from "./_import.ts";
import { loadHealth, loadRecent, onOpen } from "./_panels.ts";
import type { Row } from "./_query.ts";
import { loadLinks } from "./_refs.ts";
import { entryAt, numberEntry, pushRoute, type Route, readRoute, replaceRoute, routeHash } from "./_route.ts";
import { loadStats } from "./_stats.ts";
import { loadStyle } from "./_style.ts";
import { dropOffers, toast, toastKeys } from "./_toast.ts";
import { TryBox } from "./_try.ts";

const state = {
  kinds: { kinds: [], private_sections: [] } as Kinds,
  target: null as EditorTarget | null,
  form: null as HTMLFormElement | null,
  dirty: false,
  /** The history entry whose view is on screen (_route.ts), where a refused Back or Forward returns. */
  entry: 0,
};

const detail = (err: unknown) =>
  isApiError(err) ? err.detail : err instanceof Error ? err.message : String(err);

function fail(err: unknown): void {
  if (isApiError(err) && err.status === 401) {
    toast("This editor needs its token: open the link printed by `lorecards ui` (it ends in ?token=…).", {
      error: true,
    });
  } else toast(detail(err), { error: true });
}

function kindInfo(name: string) {
  return state.kinds.kinds.find((k) => k.name === name) ?? state.kinds.kinds[0]!;
}

const idOf = (card: { kind: string; key: string } | undefined) => card && `${card.kind}/${card.key}`;

/** A card's size as its row in the list has it: the header and the row say one count. */
function sizeOf(card: CardData | undefined): EditorTarget["size"] {
  const row = card && browse.rowOf(`${card.kind}/${card.key}`);
  return row && !row.archived ? { chars: row.chars, tokens: row.facts?.tokens } : undefined;
}

const browse = new Browse({
  kinds: () => state.kinds,
  open: (row) => void (row.archived ? restore(row) : openCard(row.kind, row.key)),
  current: () => idOf(state.target?.card),
  sized: () => {
    if (state.form && state.target?.card) sizeInForm(state.form, sizeOf(state.target.card));
  },
  fail,
});

function leaveOk(): boolean {
  return !state.dirty || confirm("Discard your unsaved changes to this card?");
}

function showList(): void {
  dropOffers();
  state.entry = entryAt();
  document.body.dataset.view = "list";
}

function showEditor(target: EditorTarget, focus = true): void {
  if (!target.card || idOf(target.card) !== idOf(state.target?.card)) dropOffers();
  state.target = { ...target, size: sizeOf(target.card) };
  state.dirty = false;
  state.entry = entryAt();
  const form = buildEditor(state.kinds, state.target, {
    save: (body) => void save(body),
    archive: () => void archive(),
    back: () => (readRoute().view === "list" ? showList() : history.back()),
    changeKind: (kind) => showEditor({ kind: kindInfo(kind), draft: draftOf(state.form) }),
    cards: () => browse.rows,
  });
  form.addEventListener("input", () => {
    state.dirty = true;
  });
  state.form = form;
  $("#editor").replaceChildren(form);
  document.body.dataset.view = "edit";
  browse.markCurrent();
  tryBox.rerender();
  if (($("#history") as HTMLDetailsElement).open)
    loadHistory($("#history .panel-body"), historyHooks).catch(fail);
  const links = form.querySelector<HTMLDetailsElement>("details.links");
  const card = target.card;
  if (links && card)
    links.addEventListener(
      "toggle",
      () =>
        links.open &&
        loadLinks(form.querySelector(".links-body")!, card, (k, key) => void openCard(k, key)).catch(fail),
    );
  if (focus) (form.elements.namedItem("title") as HTMLInputElement).focus();
}

/**
 * Counts the cards asked to be shown (an open, a new card, the address followed): a card whose answer
 * arrives after a later one was asked for is not shown, so the address followed at the start, or a
 * slow first click, never replaces the card the person has opened since and is typing in.
 */
let asked = 0;

async function openCard(kind: string, key: string, push = true): Promise<void> {
  if (leaveOk()) await loadCard(kind, key, push);
}

async function loadCard(kind: string, key: string, push: boolean): Promise<void> {
  const mine = ++asked;
  try {
    const card = await api<CardData>("GET", path(kind, key));
    if (mine !== asked) return;
    if (push) pushRoute({ view: "card", kind: card.kind, key: card.key });
    showEditor({ kind: kindInfo(card.kind), card });
  } catch (err) {
    fail(err);
  }
}

function newCard(kind: string, draft?: EditorTarget["draft"]): void {
  if (!leaveOk()) return;
  asked++;
  pushRoute({ view: "new", kind });
  showEditor({ kind: kindInfo(kind), draft });
}

async function save(body: Record<string, unknown>, force?: string): Promise<void> {
  const target = state.target!;
  // A card opened while the save was on its way is the one the person is in now: the save's answer
  // says it went through, and rebuilds nothing over the newer form.
  const mine = asked;
  const stillHere = () => mine === asked;
  try {
    const card = target.card
      ? await api<CardData>("PUT", path(target.card.kind, target.card.key), {
          ...body,
          mtime: force ?? target.card.mtime,
        })
      : await api<CardData>("POST", "/api/cards", body);
    if (stillHere()) {
      state.dirty = false;
      replaceRoute({ view: "card", kind: card.kind, key: card.key });
    }
    await browse.load();
    if (stillHere()) {
      showEditor({ kind: kindInfo(card.kind), card }, false);
      if (state.form) warnInForm(state.form, card.checks ?? []);
    }
    toast(target.card ? `Saved “${card.title}”.` : `Created “${card.title}”.`);
  } catch (err) {
    if (!stillHere()) fail(err);
    else if (isApiError(err) && err.status === 409 && target.card && err.body.current)
      conflict(body, err.body.current as CardData);
    else if (state.form) alertInForm(state.form, detail(err));
  }
}

/** The card changed on disk since it was opened: never overwrite silently; let the user choose. */
function conflict(mine: Record<string, unknown>, current: CardData): void {
  conflictInForm(state.form!, {
    load: () => showEditor({ kind: kindInfo(current.kind), card: current }),
    overwrite: () => void save(mine, current.mtime),
  });
}

function emptyEditor(text: string): void {
  state.target = null;
  state.form = null;
  $("#editor").replaceChildren(el("div", { class: "empty" }, el("p", {}, text)));
}

async function archive(): Promise<void> {
  const card = state.target?.card;
  if (!card) return;
  try {
    const { archived } = await api<{ archived: Archived }>("DELETE", path(card.kind, card.key));
    state.dirty = false;
    emptyEditor(`“${card.title}” is in the archive. Tick “Archived” to restore it.`);
    replaceRoute({ view: "list" });
    showList();
    // Asked nothing, as a bulk action's toast is: its Undo brings the card back (a restore).
    toast(`Archived “${card.title}” (moved to _archive/, nothing deleted).`, {
      action: { label: "Undo", run: () => void restore(archived) },
    });
    await browse.load();
  } catch (err) {
    fail(err);
  }
}

/** An archived card back (a row of the archive, or an archive's Undo), opened unless another card's changes stay. */
async function restore(item: Pick<Row, "kind" | "key">): Promise<void> {
  try {
    const card = await api<CardData>("POST", path(item.kind, item.key, "/restore"), {});
    toast(`Restored “${card.title}”.`);
    if (browse.archived) ($("#show-archived") as HTMLInputElement).click();
    else await browse.load();
    if (!leaveOk()) return;
    pushRoute({ view: "card", kind: card.kind, key: card.key });
    showEditor({ kind: kindInfo(card.kind), card });
  } catch (err) {
    fail(err);
  }
}

const historyHooks: HistoryHooks = {
  card: () => state.target?.card,
  leaveOk,
  fail,
  open: (kind, key) => void openCard(kind, key),
  changed: async () => {
    await browse.load();
    const card = state.target?.card;
    if (card && !state.dirty)
      await openCard(card.kind, card.key, false).catch(() => emptyEditor("This card is no longer there."));
  },
  reverted: (card: Reverted, n) => {
    showEditor({ kind: kindInfo(card.kind), card }, false);
    toast(`“${card.title}” is back as it was after version ${n}.`);
    browse.load().catch(fail);
  },
};

const shelf = new Shelf({ switched: showBook, leaveOk, fail });

/** Another book is shown: its kinds and cards in the list, and no card open. */
async function showBook(): Promise<void> {
  state.dirty = false;
  emptyEditor("Pick a card on the left, or start a new one.");
  replaceRoute({ view: "list" });
  showList();
  state.kinds = await api<Kinds>("GET", "/api/kinds");
  browse.fillChoices();
  await browse.load();
  const books = $("#shelf") as HTMLDetailsElement;
  if (books.open) await loadShelf(books.querySelector(".panel-body")!, shelf);
}

/** A card of any book (a try reads several): its book is shown first. */
async function openIn(kind: string, key: string, book = "main"): Promise<void> {
  if (book !== currentBook()) {
    if (!leaveOk()) return;
    await shelf.switchTo(book);
  }
  await openCard(kind, key);
}

const tryBox = new TryBox({
  open: (kind, key, book) => void openIn(kind, key, book).catch(fail),
  as: () => shelf.tryAs(),
  form: () => state.form,
  edited: () => {
    state.dirty = true;
  },
  newCard: (kind, draft) =>
    newCard(state.kinds.kinds.some((k) => k.name === kind) ? kind : state.kinds.kinds[0]!.name, draft),
  fail,
});

/** What is on screen, as an address: the card open, a new card, or the list. */
function shownRoute(): Route {
  const { target } = state;
  if (target?.card) return { view: "card", kind: target.card.kind, key: target.card.key };
  return target ? { view: "new", kind: target.kind.name } : { view: "list" };
}

/** Show what the address names: a card, a new card, or the list (Back and Forward land here). */
async function follow(): Promise<void> {
  const route = readRoute();
  if (route.view !== "list") {
    // The card on screen (its unsaved changes kept on the list's entry, or a refused move taken back).
    if (routeHash(route) === routeHash(shownRoute())) {
      state.entry = entryAt();
      return;
    }
    // The browser moved the address before the page could ask: Cancel goes back to the entry shown.
    if (!leaveOk()) {
      const back = state.entry - entryAt();
      if (back !== 0) history.go(back);
      else replaceRoute(shownRoute());
      return;
    }
  }
  if (route.view === "card") await loadCard(route.kind, route.key, false);
  else if (route.view === "new" && state.kinds.kinds.some((k) => k.name === route.kind))
    showEditor({ kind: kindInfo(route.kind) });
  else {
    // Back to the list: the card is closed, as the address says (a wide screen keeps the editor in
    // view beside the list); a form with unsaved changes stays rather than lose them.
    if (state.target && !state.dirty) emptyEditor("Pick a card on the left, or start a new one.");
    showList();
  }
}

async function start(): Promise<void> {
  adoptTokenFromUrl();
  numberEntry(0);
  linkAppAssets();
  toastKeys();
  guardDrops();
  $("#new-card").addEventListener("click", () =>
    newCard(state.target?.kind.name ?? state.kinds.kinds[0]?.name ?? "entry"),
  );
  const open = (k: string, key: string) => void openCard(k, key);
  const panel = (id: string, load: (body: HTMLElement) => Promise<void>) => onOpen(id, load, fail);
  panel("#shelf", (body) => loadShelf(body, shelf));
  panel("#recent", loadRecent);
  panel("#conversations", loadConversations);
  panel("#health", (body) => loadHealth(body, open));
  panel("#stats", loadStats);
  panel("#style", (body) => loadStyle(body, (m, error) => void toast(m, { error })));
  panel("#card-health", (body) => loadCardHealth(body, open));
  panel("#history", (body) => loadHistory(body, historyHooks));
  panel("#changes", (body) => loadChanges(body, historyHooks));
  const setTryBudget = (n: number | undefined) => {
    tryBox.budget = n;
  };
  panel("#budget", (body) => loadBudget(body, { open, setTryBudget }));
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s" && state.form) {
      e.preventDefault();
      state.form.requestSubmit();
    }
  });
  window.addEventListener("beforeunload", (e) => {
    if (state.dirty) e.preventDefault();
  });
  window.addEventListener("popstate", () => {
    numberEntry(state.entry + 1);
    void follow();
  });
  try {
    // The books first when the address names one (`?book=`): the list is that book's.
    const books = shelf.load();
    if (new URL(location.href).searchParams.has("book")) await books;
    // The list and the kinds are asked for at once: the list is the larger answer.
    const cards = browse.fetch();
    state.kinds = await api<Kinds>("GET", "/api/kinds");
    browse.fillChoices();
    buildBooks($("#books .panel-body"), {
      kinds: state.kinds,
      imported: () => void Promise.all([browse.load(), shelf.load()]).catch(fail),
      open,
      show: (book) => shelf.choose(book),
    });
    await browse.load(cards);
    await books;
    // A card the person opened while the page was still starting is left as they have it: following the
    // address (which now names it) would build its form again, closing what they opened, asking to drop
    // what they typed.
    if (state.target === null) await follow();
  } catch (err) {
    fail(err);
  }
  // Said once the page has done all it does on its own at the start (tests wait for it).
  document.body.dataset.started = "";
}

void start();
