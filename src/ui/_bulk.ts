// The bar over the list while cards are selected: what to do to all of them at once (enable, disable,
// when they are sent, kind, a tag, archive). Each action is one `POST /api/bulk`: one step of the
// history, which the toast's Undo (or the "Recent changes" panel) takes back in one go.
import type { BulkAction, BulkResult, KindInfo, Undone } from "../api/types.ts";
import { api, isApiError } from "./_client.ts";
import { el } from "./_dom.ts";
import type { Row } from "./_query.ts";
import { toast } from "./_toast.ts";
import { POLICY_WORDS, plural } from "./_words.ts";

export interface BulkHooks {
  selected(): readonly Row[];
  /** How many are selected (cheaper than `selected()` on every keystroke). */
  count(): number;
  shown(): number;
  kinds(): KindInfo[];
  selectAll(): void;
  clear(): void;
  /** The vault changed: load the list again. */
  changed(): Promise<void>;
}

/** What the toast says a step did. */
const DONE: Record<BulkAction, (n: string, value?: string) => string> = {
  enable: (n) => `Enabled ${n}.`,
  disable: (n) => `Disabled ${n}.`,
  context: (n, v) => `${n} now sent: ${POLICY_WORDS[v ?? ""]?.label.toLowerCase() ?? v}.`,
  kind: (n, v) => `Moved ${n} to ${v}.`,
  archive: (n) => `Archived ${n} (in _archive/, nothing deleted).`,
  tag: (n, v) => `Tagged ${n} “${v}”.`,
  untag: (n, v) => `Took the tag “${v}” off ${n}.`,
};

export async function undoStep(step: number, changed: () => Promise<void>): Promise<void> {
  try {
    const r = await api<Undone>("POST", `/api/history/${step}/undo`, {});
    toast(`Undone: ${plural(r.cards.length, "card")} put back as they were.`);
  } catch (err) {
    refused(err, "Could not undo");
  }
  await changed();
}

/** A refusal as a toast that stays, listing the cards it names. */
export function refused(err: unknown, what: string): void {
  const cards = isApiError(err) && Array.isArray(err.body.cards) ? (err.body.cards as string[]) : [];
  const detail = isApiError(err) ? err.detail : String(err);
  toast(`${what}: ${cards.length ? "nothing was changed." : detail}`, { error: true, details: cards });
}

export function bulkBar(host: HTMLElement, hooks: BulkHooks): { update(): void } {
  const run = async (action: BulkAction, value?: string) => {
    const rows = hooks.selected();
    if (rows.length === 0) return;
    if (
      action === "archive" &&
      !confirm(`Archive ${plural(rows.length, "card")}? They move to _archive/; one Undo brings them back.`)
    )
      return;
    try {
      const cards = rows.map((r) => ({ kind: r.kind, key: r.key, mtime: r.mtime }));
      const r = await api<BulkResult>("POST", "/api/bulk", { action, value, cards });
      const n = plural(r.changed.length, "card");
      const step = r.step;
      const same = r.unchanged.length ? ` ${plural(r.unchanged.length, "card")} already were.` : "";
      toast(
        DONE[action](n, value) + same,
        step === null ? {} : { action: { label: "Undo", run: () => void undoStep(step, hooks.changed) } },
      );
      hooks.clear();
    } catch (err) {
      refused(err, "Nothing was changed");
    }
    await hooks.changed();
  };
  const choose = (label: string, options: [string, string][], action: BulkAction) => {
    const select = el(
      "select",
      {
        "aria-label": label,
        onchange: (e: Event) => {
          const s = e.target as HTMLSelectElement;
          if (s.value !== "") void run(action, s.value);
          s.value = "";
        },
      },
      el("option", { value: "" }, label),
      ...options.map(([v, text]) => el("option", { value: v }, text)),
    );
    return select;
  };
  const tagInput = el("input", {
    type: "text",
    "aria-label": "Tag",
    placeholder: "tag",
    autocomplete: "off",
    class: "tag-input",
  });
  const tagged = (action: BulkAction) => () => {
    const tag = tagInput.value.trim();
    if (tag === "") return tagInput.focus();
    void run(action, tag).then(() => {
      tagInput.value = "";
    });
  };
  const count = el("strong", { class: "bulk-count", "aria-live": "polite" });
  const all = el("button", { type: "button", class: "small", onclick: () => hooks.selectAll() });
  const bar = el(
    "div",
    { class: "bulk", role: "toolbar", "aria-label": "Change the selected cards" },
    el(
      "div",
      { class: "bulk-head" },
      count,
      all,
      el("button", { type: "button", class: "small", onclick: () => hooks.clear() }, "Clear"),
    ),
    el(
      "div",
      { class: "bulk-actions" },
      el("button", { type: "button", class: "small", onclick: () => void run("enable") }, "Enable"),
      el("button", { type: "button", class: "small", onclick: () => void run("disable") }, "Disable"),
      choose(
        "Sent…",
        Object.entries(POLICY_WORDS).map(([v, w]) => [v, w.label]),
        "context",
      ),
      choose("Kind…", [], "kind"),
      el(
        "span",
        { class: "tagging" },
        tagInput,
        el("button", { type: "button", class: "small", onclick: tagged("tag") }, "Tag"),
        el("button", { type: "button", class: "small", onclick: tagged("untag") }, "Untag"),
      ),
      el("button", { type: "button", class: "small danger", onclick: () => void run("archive") }, "Archive"),
    ),
  );
  host.replaceChildren(bar);
  const kindSelect = bar.querySelectorAll("select")[1]!;
  return {
    update() {
      const n = hooks.count();
      host.hidden = n === 0;
      count.textContent = `${plural(n, "card")} selected`;
      all.textContent = `Select all ${hooks.shown().toLocaleString()}`;
      all.hidden = n >= hooks.shown();
      if (kindSelect.options.length === 1)
        kindSelect.append(...hooks.kinds().map((k) => el("option", { value: k.name }, k.name)));
    },
  };
}
