// The page's side panels and the try box: what a sentence would surface (and on which words), what
// surfaced lately (time, card keys, source — never the message text), the health check, and
// SillyTavern import/export.
import { api, download } from "./_client.ts";
import { el, field, formatTime } from "./_dom.ts";
import type { Kinds, TryResult } from "./_types.ts";

export interface TryHandlers {
  open(kind: string, key: string): void;
  /** A candidate word was clicked: add it to the open card, or start a new one (`asNew`). */
  useWord(word: string, group: "names" | "places" | "aliases", asNew: boolean): void;
  hasOpenCard(): boolean;
}

/** How a card that fired on no word came in (`via`). */
const CAME_BY: Record<string, string> = {
  always: "always on",
  explicit: "asked for",
  sticky: "still sticky",
};

export function renderTry(box: HTMLElement, text: string, result: TryResult, handlers: TryHandlers): void {
  const rows = result.fired.map((f) =>
    el(
      "li",
      { class: f.in_budget ? "fired in" : "fired out" },
      el("button", { type: "button", class: "link", onclick: () => handlers.open(f.kind, f.key) }, f.title),
      el("span", { class: "tag" }, f.kind),
      f.hits.length > 0
        ? el("span", { class: "on" }, "on ", el("b", {}, f.hits.join(", ")))
        : el("span", { class: "on" }, CAME_BY[f.via] ?? f.via),
      el(
        "span",
        { class: "budget" },
        f.in_budget ? `in budget · ${f.chars} chars` : `left out, over budget · ${f.chars} chars`,
      ),
    ),
  );
  const summary =
    result.fired.length === 0
      ? `Nothing would surface for “${text}”.`
      : `${result.injected.length} of ${result.fired.length} would be injected (${result.injected_chars} characters)` +
        (result.truncated ? `; ${result.truncated} left out by the budget.` : ".");
  const groups = (["names", "places", "aliases"] as const).flatMap((g) =>
    result.candidates[g].map((w) => ({ w, g })),
  );
  const open = handlers.hasOpenCard();
  const chips = groups.map(({ w, g }) =>
    el(
      "span",
      { class: "chip" },
      el(
        "button",
        {
          type: "button",
          class: "chip-main",
          title: open ? `Add “${w}” as a keyword of the open card` : `Start a new card for “${w}”`,
          onclick: () => handlers.useWord(w, g, false),
        },
        `+ ${w}`,
      ),
      open
        ? el(
            "button",
            {
              type: "button",
              class: "chip-new",
              "aria-label": `New card for ${w}`,
              onclick: () => handlers.useWord(w, g, true),
            },
            "new",
          )
        : null,
    ),
  );
  const broken = result.broken ?? [];
  const parts: (HTMLElement | null)[] = [
    el("p", { class: "summary" }, summary),
    broken.length
      ? el(
          "p",
          { class: "broken-note" },
          `Skipped ${broken.length} card file(s) that cannot be read: ${broken.map((b) => b.path).join(", ")}.`,
        )
      : null,
    rows.length ? el("ol", { class: "fired-list" }, ...rows) : null,
    chips.length
      ? el(
          "div",
          { class: "candidates" },
          el("span", { class: "label" }, open ? "No card yet — add as keyword:" : "No card yet:"),
          ...chips,
        )
      : null,
  ];
  box.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  box.hidden = false;
}

interface Hit {
  time: string;
  source: string;
  keys: string[];
}

export async function loadRecent(body: HTMLElement): Promise<void> {
  const { hits } = await api<{ hits: Hit[] }>("GET", "/api/recent?limit=30");
  if (hits.length === 0) {
    body.replaceChildren(el("p", { class: "muted" }, "Nothing has surfaced yet."));
    return;
  }
  // Only time, keys and source: the log's message text stays out of the page (README "What gets
  // written to disk").
  body.replaceChildren(
    el(
      "ul",
      { class: "recent-list" },
      ...hits.map((h) =>
        el(
          "li",
          {},
          el("time", { datetime: h.time }, formatTime(h.time)),
          el("span", { class: "keys" }, h.keys.join(", ")),
          el("span", { class: "tag" }, h.source),
        ),
      ),
    ),
  );
}

interface Finding {
  severity: string;
  code: string;
  card: string;
  detail: string;
}

export async function loadHealth(
  body: HTMLElement,
  open: (kind: string, key: string) => void,
): Promise<void> {
  const r = await api<{ cards: number; findings: Finding[] }>("GET", "/api/checkup");
  if (r.findings.length === 0) {
    body.replaceChildren(el("p", { class: "muted" }, `All ${r.cards} cards look fine.`));
    return;
  }
  body.replaceChildren(
    el(
      "ul",
      { class: "findings" },
      ...r.findings.map((f) => {
        const [kind, ...rest] = f.card.split("/");
        return el(
          "li",
          { class: f.severity },
          el("button", { type: "button", class: "link", onclick: () => open(kind!, rest.join("/")) }, f.card),
          el("span", {}, f.detail),
        );
      }),
    ),
  );
}

/** The export formats of `GET /api/export?format=` with the names the page shows. */
const EXPORTS: [string, string][] = [
  ["st", "SillyTavern lorebook (.json)"],
  ["lorebook_v3", "Character Card V3 lorebook (.json)"],
  ["card-json", "Character card (.json)"],
  ["card-png", "Character card (.png)"],
  ["charx", "Character card archive (.charx)"],
];

export function buildBooks(
  body: HTMLElement,
  kinds: Kinds,
  say: (msg: string, error?: boolean) => void,
  done: () => void,
) {
  const file = el("input", {
    type: "file",
    accept: ".json,.png,.charx,application/json,image/png",
    name: "book",
  });
  const kind = el(
    "select",
    { name: "import-kind" },
    ...kinds.kinds.map((k) => el("option", { value: k.name, selected: k.name === "entry" }, k.name)),
  );
  const force = el("input", { type: "checkbox", name: "force" });
  const importForm = el(
    "form",
    { class: "books", "aria-label": "Import a lorebook or character card" },
    field("Lorebook or character card (.json, .png, .charx)", file),
    field("Import as kind", kind),
    el("label", { class: "check" }, force, " Overwrite cards that exist"),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Import")),
  );
  importForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return say("Choose a lorebook or card file first.", true);
    // The file goes as it is: the server recognises JSON, card PNGs and CHARX archives by their bytes.
    const query = new URLSearchParams({
      kind: kind.value,
      force: String(force.checked),
      filename: chosen.name,
    });
    try {
      const r = await api<{
        created: number;
        kept: number;
        overwritten: number;
        skipped: unknown[];
        checks?: unknown[];
      }>("POST", `/api/import?${query}`, chosen);
      // The write checks' warnings (README "Write checks") are only counted here: `lorecards import --json` lists them.
      const checks = r.checks?.length ? ` ${r.checks.length} write-check warnings.` : "";
      say(
        `Imported ${chosen.name}: ${r.created} new, ${r.overwritten} overwritten, ${r.kept} kept, ${r.skipped.length} skipped.${checks}`,
      );
      done();
    } catch (err) {
      say(`Import failed: ${errorText(err)}`, true);
    }
  });
  const format = el(
    "select",
    { name: "export-format" },
    ...EXPORTS.map(([value, label]) => el("option", { value }, label)),
  );
  const exportForm = el(
    "form",
    { class: "books", "aria-label": "Export the vault" },
    field("Export as", format),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Export")),
  );
  exportForm.addEventListener("submit", (e) => {
    e.preventDefault();
    void exportBook(format.value, say);
  });
  body.replaceChildren(importForm, exportForm);
}

function errorText(err: unknown): string {
  const e = err as { detail?: string; message?: string };
  return e.detail ?? e.message ?? String(err);
}

async function exportBook(format: string, say: (msg: string, error?: boolean) => void): Promise<void> {
  try {
    const { blob, filename } = await download(`/api/export?format=${encodeURIComponent(format)}`);
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(`Exported ${filename}.`);
  } catch (err) {
    say(`Export failed: ${errorText(err)}`, true);
  }
}
