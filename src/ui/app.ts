// The editor page: cards by kind on the left, the form on the right, the try box on top. Plain DOM;
// all state lives in one object below, and everything shown comes from the API.
import { adoptTokenFromUrl, api, isApiError, path } from "./_client.ts";
import { $, el } from "./_dom.ts";
import { explainTry, loadConversations } from "./_door.ts";
import { addKeyword, alertInForm, buildEditor, type EditorTarget, warnInForm } from "./_editor.ts";
import { loadCardHealth } from "./_health.ts";
import { type HistoryHooks, loadHistory } from "./_history.ts";
import { type CardRef, listKeys, markCurrent, renderCardList } from "./_list.ts";
import { buildBooks, loadHealth, loadRecent, renderTry } from "./_panels.ts";
import { loadStats } from "./_stats.ts";
import { loadStyle } from "./_style.ts";
import type { BrokenItem, CardData, Kinds, ListItem, TryResult } from "./_types.ts";

const state = {
  kinds: { kinds: [], private_sections: [] } as Kinds,
  cards: [] as ListItem[],
  broken: [] as BrokenItem[],
  archived: false,
  target: null as EditorTarget | null,
  form: null as HTMLFormElement | null,
  dirty: false,
  lastTry: null as { text: string; result: TryResult } | null,
};

let noticeTimer: ReturnType<typeof setTimeout> | undefined;

/** A one-line status; confirmations fade after a few seconds, errors stay until the next message. */
function say(message: string, error = false): void {
  const box = $("#notice");
  box.textContent = message;
  box.className = error ? "notice error" : "notice";
  box.hidden = false;
  clearTimeout(noticeTimer);
  if (!error) noticeTimer = setTimeout(() => (box.hidden = true), 6000);
}

function detail(err: unknown): string {
  if (isApiError(err)) return err.detail;
  return err instanceof Error ? err.message : String(err);
}

function fail(err: unknown): void {
  if (isApiError(err) && err.status === 401) {
    say("This editor needs its token: open the link printed by `lorecards ui` (it ends in ?token=…).", true);
  } else say(detail(err), true);
}

function kindInfo(name: string) {
  return state.kinds.kinds.find((k) => k.name === name) ?? state.kinds.kinds[0]!;
}

async function loadList(): Promise<void> {
  const q = state.archived ? "?archived=1" : "";
  const list = await api<{ cards: ListItem[]; broken?: BrokenItem[] }>("GET", `/api/cards${q}`);
  state.cards = list.cards;
  state.broken = list.broken ?? [];
  renderList();
}

function currentRef(): CardRef | undefined {
  const card = state.target?.card;
  return card && { kind: card.kind, key: card.key };
}

function renderList(): void {
  renderCardList($("#card-list"), {
    kinds: state.kinds.kinds,
    cards: state.cards,
    broken: state.broken,
    archived: state.archived,
    filter: ($("#filter") as HTMLInputElement).value,
    current: currentRef(),
    pick: (c) => void (c.archived ? restore(c) : openCard(c.kind, c.key)),
  });
}

function leaveOk(): boolean {
  return !state.dirty || confirm("Discard your unsaved changes to this card?");
}

function showEditor(target: EditorTarget, focus = true): void {
  state.target = target;
  state.dirty = false;
  const form = buildEditor(state.kinds, target, {
    save: (body) => void save(body),
    archive: () => void archive(),
    back: () => {
      document.body.dataset.view = "list";
    },
    changeKind: (kind) => showEditor({ kind: kindInfo(kind), draft: draftOf(state.form) }),
  });
  form.addEventListener("input", () => {
    state.dirty = true;
  });
  state.form = form;
  $("#editor").replaceChildren(form);
  document.body.dataset.view = "edit";
  markCurrent($("#card-list"), currentRef());
  if (state.lastTry) rerenderTry();
  if (($("#history") as HTMLDetailsElement).open)
    loadHistory($("#history .panel-body"), historyHooks).catch(fail);
  if (focus) (form.elements.namedItem("title") as HTMLInputElement).focus();
}

function draftOf(form: HTMLFormElement | null) {
  const v = (n: string) => (form?.elements.namedItem(n) as HTMLInputElement | null)?.value ?? "";
  return {
    title: v("title"),
    keywords: v("keywords")
      .split(",")
      .map((w) => w.trim())
      .filter(Boolean),
  };
}

async function openCard(kind: string, key: string): Promise<void> {
  if (!leaveOk()) return;
  try {
    const card = await api<CardData>("GET", path(kind, key));
    showEditor({ kind: kindInfo(card.kind), card });
  } catch (err) {
    fail(err);
  }
}

function newCard(kind: string, draft?: EditorTarget["draft"]): void {
  if (!leaveOk()) return;
  showEditor({ kind: kindInfo(kind), draft });
}

async function save(body: Record<string, unknown>, force?: string): Promise<void> {
  const target = state.target!;
  try {
    let card: CardData;
    if (!target.card) card = await api<CardData>("POST", "/api/cards", body);
    else
      card = await api<CardData>("PUT", path(target.card.kind, target.card.key), {
        ...body,
        mtime: force ?? target.card.mtime,
      });
    state.dirty = false;
    showEditor({ kind: kindInfo(card.kind), card }, false);
    if (state.form) warnInForm(state.form, card.checks ?? []);
    say(target.card ? `Saved “${card.title}”.` : `Created “${card.title}”.`);
    await loadList();
  } catch (err) {
    if (isApiError(err) && err.status === 409 && target.card && err.body.current) {
      conflict(body, err.body.current as CardData);
    } else if (state.form) alertInForm(state.form, detail(err));
  }
}

/** The card changed on disk since it was opened: never overwrite silently; let the user choose. */
function conflict(mine: Record<string, unknown>, current: CardData): void {
  const form = state.form!;
  const banner = el(
    "div",
    { class: "banner conflict", role: "alert" },
    el("strong", {}, "This card changed on disk after you opened it. "),
    "Your edits are not saved yet.",
    el(
      "div",
      { class: "actions" },
      el(
        "button",
        { type: "button", onclick: () => showEditor({ kind: kindInfo(current.kind), card: current }) },
        "Load the version on disk",
      ),
      el(
        "button",
        { type: "button", class: "danger", onclick: () => void save(mine, current.mtime) },
        "Overwrite it with mine",
      ),
    ),
  );
  form.querySelector(".conflict-slot")!.replaceChildren(banner);
  (banner.querySelector("button") as HTMLButtonElement).focus();
}

async function archive(): Promise<void> {
  const card = state.target?.card;
  if (!card) return;
  try {
    await api("DELETE", path(card.kind, card.key));
    state.dirty = false;
    state.target = null;
    state.form = null;
    $("#editor").replaceChildren(
      el(
        "div",
        { class: "empty" },
        el("p", {}, `“${card.title}” is in the archive. Tick “Archived” to restore it.`),
      ),
    );
    document.body.dataset.view = "list";
    say(`Archived “${card.title}” (moved to _archive/, nothing deleted).`);
    await loadList();
  } catch (err) {
    fail(err);
  }
}

async function restore(item: ListItem): Promise<void> {
  try {
    const card = await api<CardData>("POST", path(item.kind, item.key, "/restore"), {});
    say(`Restored “${card.title}”.`);
    state.archived = false;
    ($("#show-archived") as HTMLInputElement).checked = false;
    await loadList();
    showEditor({ kind: kindInfo(card.kind), card });
  } catch (err) {
    fail(err);
  }
}

const historyHooks: HistoryHooks = {
  card: () => state.target?.card,
  leaveOk,
  fail,
  reverted: (card, n) => {
    showEditor({ kind: kindInfo(card.kind), card }, false);
    say(`“${card.title}” is back as it was after version ${n}.`);
    loadList().catch(fail);
  },
};

const KIND_FOR_GROUP = { names: "people", places: "place", aliases: "entry" } as const;

function rerenderTry(): void {
  if (!state.lastTry) return;
  renderTry($("#try-result"), state.lastTry.text, state.lastTry.result, {
    open: (kind, key) => void openCard(kind, key),
    hasOpenCard: () => state.form !== null,
    useWord: (word, group, asNew) => {
      if (!asNew && state.form && addKeyword(state.form, word)) {
        state.dirty = true;
        say(`Added “${word}” to the keywords. Save to keep it.`);
        return;
      }
      const wanted = KIND_FOR_GROUP[group];
      const kind = state.kinds.kinds.some((k) => k.name === wanted) ? wanted : state.kinds.kinds[0]!.name;
      newCard(kind, { title: word, keywords: [word] });
    },
  });
}

async function runTry(e: Event): Promise<void> {
  e.preventDefault();
  const text = ($("#try-text") as HTMLInputElement).value.trim();
  if (!text) return;
  try {
    const result = await api<TryResult>("POST", "/api/try", { text });
    state.lastTry = { text, result };
    rerenderTry();
    await explainTry($("#try-why"), text);
  } catch (err) {
    fail(err);
  }
}

function panel(id: string, load: (body: HTMLElement) => Promise<void>): void {
  const details = $(id) as HTMLDetailsElement;
  details.addEventListener("toggle", () => {
    if (details.open) load(details.querySelector(".panel-body")!).catch(fail);
  });
}

/**
 * The manifest and icon are served by the binary at fixed paths; they are linked from here because the
 * HTML bundler would try to resolve (and fail on) absolute paths in the page itself.
 */
function linkAppAssets(): void {
  document.head.append(
    el("link", { rel: "manifest", href: "/manifest.webmanifest" }),
    el("link", { rel: "icon", href: "/icon.svg", type: "image/svg+xml" }),
    // iOS ignores an SVG here.
    el("link", { rel: "apple-touch-icon", href: "/icon-180.png", sizes: "180x180" }),
  );
}

async function start(): Promise<void> {
  adoptTokenFromUrl();
  linkAppAssets();
  $("#try").addEventListener("submit", (e) => void runTry(e));
  $("#new-card").addEventListener("click", () =>
    newCard(state.target?.kind.name ?? state.kinds.kinds[0]?.name ?? "entry"),
  );
  $("#filter").addEventListener("input", renderList);
  listKeys($("#card-list"));
  $("#show-archived").addEventListener("change", (e) => {
    state.archived = (e.target as HTMLInputElement).checked;
    loadList().catch(fail);
  });
  panel("#recent", loadRecent);
  panel("#conversations", loadConversations);
  panel("#health", (body) => loadHealth(body, (k, key) => void openCard(k, key)));
  panel("#stats", loadStats);
  panel("#style", (body) => loadStyle(body, say));
  panel("#card-health", (body) => loadCardHealth(body, (k, key) => void openCard(k, key)));
  panel("#history", (body) => loadHistory(body, historyHooks));
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s" && state.form) {
      e.preventDefault();
      state.form.requestSubmit();
    }
  });
  window.addEventListener("beforeunload", (e) => {
    if (state.dirty) e.preventDefault();
  });
  try {
    state.kinds = await api<Kinds>("GET", "/api/kinds");
    buildBooks($("#books .panel-body"), state.kinds, say, () => void loadList());
    await loadList();
  } catch (err) {
    fail(err);
  }
}

void start();
