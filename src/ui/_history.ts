// The open card's history panel (README "History"): its versions newest first (number, when, who
// wrote it, what changed); picking one shows that change as a line diff, with a button to put the
// card back as it was after it. The diff comes from the server, so the page carries no diff code.
import { api, path } from "./_client.ts";
import { el, formatTime } from "./_dom.ts";
import type { CardData } from "./_types.ts";

interface VersionItem {
  version: number;
  at: string;
  writer: string;
  action: string;
  size: number | null;
  summary: string;
}

interface Hunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  lines: string[];
}

interface VersionDetail extends VersionItem {
  before: string | null;
  after: string | null;
  diff: Hunk[];
}

export interface HistoryHooks {
  /** The card open in the editor, if any. */
  card(): CardData | undefined;
  /** Unsaved edits may be dropped (asks the user when there are some). */
  leaveOk(): boolean;
  reverted(card: CardData, version: number): void;
  fail(err: unknown): void;
}

const WRITERS: Record<string, string> = {
  ui: "the editor",
  api: "the HTTP API",
  mcp: "an MCP client",
  cli: "the command line",
  import: "an import",
  hook: "the hook",
};

/** A unified diff as lines, each marked added, removed or context by its class (and its first character). */
export function renderDiff(hunks: Hunk[]): HTMLElement {
  const pre = el("pre", { class: "diff", tabindex: 0, "aria-label": "Changes in this version" });
  for (const h of hunks) {
    pre.append(
      el("span", { class: "hunk" }, `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@\n`),
    );
    for (const line of h.lines) {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      pre.append(el("span", { class: kind }, `${line}\n`));
    }
  }
  if (hunks.length === 0) pre.append(el("span", { class: "ctx" }, "(the text did not change)\n"));
  return pre;
}

async function showVersion(box: HTMLElement, card: CardData, n: number, hooks: HistoryHooks): Promise<void> {
  const d = await api<VersionDetail>("GET", path(card.kind, card.key, `/history?version=${n}`));
  const revert = async () => {
    if (!hooks.leaveOk()) return;
    try {
      const body = { version: n, mtime: card.mtime };
      hooks.reverted(await api<CardData>("POST", path(card.kind, card.key, "/revert"), body), n);
    } catch (err) {
      hooks.fail(err);
    }
  };
  box.replaceChildren(
    el(
      "p",
      { class: "version-head" },
      `#${d.version} · ${formatTime(d.at)} · ${WRITERS[d.writer] ?? d.writer}: ${d.summary}`,
    ),
    renderDiff(d.diff),
    d.after === null
      ? el("p", { class: "muted" }, "This version archived the card: there is no text to go back to.")
      : el("button", { type: "button", onclick: () => void revert() }, `Revert to #${d.version}`),
  );
}

/** Fills the panel for the card open now. */
export async function loadHistory(body: HTMLElement, hooks: HistoryHooks): Promise<void> {
  const card = hooks.card();
  if (!card) {
    body.replaceChildren(el("p", { class: "muted" }, "Open a card to see its versions."));
    return;
  }
  const { versions } = await api<{ versions: VersionItem[] }>("GET", path(card.kind, card.key, "/history"));
  if (versions.length === 0) {
    body.replaceChildren(el("p", { class: "muted" }, "No versions recorded yet: the next save records one."));
    return;
  }
  const detail = el("div", { class: "version-detail", "aria-live": "polite" });
  const pick = (n: number) => showVersion(detail, card, n, hooks).catch(hooks.fail);
  const rows = versions.map((v) =>
    el(
      "li",
      {},
      el("button", { type: "button", class: "link", onclick: () => void pick(v.version) }, `#${v.version}`),
      el("span", { class: "muted" }, ` ${formatTime(v.at)} · ${v.writer} · `),
      v.summary,
    ),
  );
  body.replaceChildren(el("ol", { class: "versions", "aria-label": "Versions, newest first" }, rows), detail);
}
