// What happened, in two panels. "History of this card": the open card's versions newest first (number,
// when, who wrote it, what changed); picking one shows that change as a line diff, with a button to put
// the card back as it was after it. "Recent changes": the vault's steps newest first (one save, one
// import, one bulk action, one undo each), with Undo, which takes a whole step back at once. The diffs
// come from the server, so the page carries no diff code.
import type { CardData, CardHistory, Reverted, Steps, VersionDetail } from "../api/types.ts";
import { refused, undoStep } from "./_bulk.ts";
import { api, path } from "./_client.ts";
import { el, formatTime } from "./_dom.ts";
import { plural, WRITER_WORDS } from "./_words.ts";

type Hunk = VersionDetail["diff"][number];

export interface HistoryHooks {
  /** The card open in the editor, if any. */
  card(): CardData | undefined;
  /** Unsaved edits may be dropped (asks the user when there are some). */
  leaveOk(): boolean;
  reverted(card: Reverted, version: number): void;
  fail(err: unknown): void;
  open(kind: string, key: string): void;
  /** The vault changed (an undo): load the list again. */
  changed(): Promise<void>;
}

function versionOf(card: CardData, n: number) {
  return api<VersionDetail>("GET", path(card.kind, card.key, `/history?version=${n}`));
}

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
  const d = await versionOf(card, n);
  const revert = async () => {
    if (!hooks.leaveOk()) return;
    try {
      hooks.reverted(
        await api<Reverted>("POST", path(card.kind, card.key, "/revert"), { version: n, mtime: card.mtime }),
        n,
      );
    } catch (err) {
      hooks.fail(err);
    }
  };
  box.replaceChildren(
    el(
      "p",
      { class: "version-head" },
      `#${d.version} · ${formatTime(d.at)} · ${WRITER_WORDS[d.writer] ?? d.writer}: ${d.summary}`,
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
  const { versions } = await api<CardHistory>("GET", path(card.kind, card.key, "/history"));
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
      el("span", { class: "muted" }, ` ${formatTime(v.at)} · ${WRITER_WORDS[v.writer] ?? v.writer} · `),
      v.summary,
      v.step !== v.version
        ? el("span", { class: "muted" }, ` (part of step #${v.step}, see Recent changes)`)
        : null,
    ),
  );
  body.replaceChildren(el("ol", { class: "versions", "aria-label": "Versions, newest first" }, rows), detail);
}

type Step = Steps["steps"][number];

/** One line a step is listed with: what it did and to which cards. */
function stepLine(s: Step): string {
  const who = WRITER_WORDS[s.writer] ?? s.writer;
  const what =
    s.action === "undo"
      ? `undid step #${s.undoes}${s.note ? ` (${s.note})` : ""}`
      : s.action === "import"
        ? `imported ${s.note ?? "a book"}`
        : s.action === "bulk"
          ? (s.note ?? "changed")
          : s.action;
  const names =
    s.names.join(", ") + (s.cards > s.names.length ? ` and ${s.cards - s.names.length} more` : "");
  return `${who} ${what}: ${s.cards > 1 ? `${plural(s.cards, "card")} (${names})` : names}`;
}

/** The "Recent changes" panel: the vault's newest steps, each with Undo. */
export async function loadChanges(body: HTMLElement, hooks: HistoryHooks): Promise<void> {
  const { steps } = await api<Steps>("GET", "/api/history?limit=30");
  if (steps.length === 0) {
    body.replaceChildren(
      el(
        "p",
        { class: "muted" },
        "Nothing has changed yet: every save, import and bulk change is listed here.",
      ),
    );
    return;
  }
  const reload = () => loadChanges(body, hooks).catch(hooks.fail);
  const undo = async (s: Step) => {
    if (!hooks.leaveOk()) return;
    await undoStep(s.step, hooks.changed);
    await reload();
  };
  body.replaceChildren(
    el(
      "ol",
      { class: "steps", "aria-label": "Changes, newest first" },
      ...steps.map((s) =>
        el(
          "li",
          {},
          el("span", { class: "muted" }, `#${s.step} · ${formatTime(s.at)} · `),
          el("span", {}, stepLine(s)),
          s.kept < s.cards
            ? el(
                "span",
                { class: "muted", title: "a card keeps its newest 50 versions" },
                " (older versions dropped: it can no longer be undone)",
              )
            : el(
                "button",
                {
                  type: "button",
                  class: "small",
                  "aria-label": `Undo step ${s.step}`,
                  onclick: () => void undo(s).catch((err) => refused(err, "Could not undo")),
                },
                "Undo",
              ),
        ),
      ),
    ),
  );
}
