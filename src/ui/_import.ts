// The "Import / export" panel. A book comes in by a drop on the drop zone or by picking a file, into the
// book `lorecards import` would put it in (`?book=auto`, docs/BOOKS.md: a character card's own book, a
// lorebook's book named after it), or into the book the page shows when the person asks for that; the
// import shows how far it got (`POST /api/import` answering in lines as it writes the cards), then
// everything it said where it was asked: the book it went into (with a way to show it), the counts, each
// note ("set char: Seraphina"), each write-check warning and
// each entry skipped, naming the card with a link to it; and what the budget does to the book's
// always-on entries (`GET /api/budget`), with the book's own settings offered as settings.yaml lines.
import type { Budget, ImportResult, Kinds } from "../api/types.ts";
import { alwaysOnWarning } from "./_budget.ts";
import { api, currentBook, download, importStream } from "./_client.ts";
import { el, field } from "./_dom.ts";
import { toast } from "./_toast.ts";
import { plural } from "./_words.ts";

export interface BookHooks {
  kinds: Kinds;
  /** The vault changed: load the list again. */
  imported(): void;
  open(kind: string, key: string): void;
  /** Show that book's cards (the Book switch). */
  show(book: string): void;
}

const EXPORTS: [string, string][] = [
  ["st", "SillyTavern lorebook (.json)"],
  ["lorebook_v3", "Character Card V3 lorebook (.json)"],
  ["card-json", "Character card (.json)"],
  ["card-png", "Character card (.png)"],
  ["charx", "Character card archive (.charx)"],
];

const errorText = (err: unknown) =>
  (err as { detail?: string }).detail ?? (err as Error).message ?? String(err);

/** A line that names a card (`kind/key`, as the checks do) as a link that opens it. */
function cardLine(card: string | null, text: string, open: BookHooks["open"]): HTMLElement {
  if (!card) return el("li", {}, text);
  const [kind, ...rest] = card.split("/");
  return el(
    "li",
    {},
    el("button", { type: "button", class: "link", onclick: () => open(kind!, rest.join("/")) }, card),
    ` ${text}`,
  );
}

function section(title: string, items: HTMLElement[]): HTMLElement | null {
  return items.length === 0
    ? null
    : el(
        "section",
        { class: "import-part" },
        el("h4", {}, `${title} (${items.length})`),
        // Taller than its room, the list scrolls: a keyboard reaches it, as a mouse wheel does.
        el("ul", { class: "import-list", tabindex: "0", "aria-label": title }, ...items),
      );
}

/** What the book's always-on entries come to under the budget, and the settings the book asked for. */
async function budgetNote(result: ImportResult): Promise<HTMLElement | null> {
  const b = await api<Budget>("GET", "/api/budget");
  const lines: HTMLElement[] = [];
  if (b.always.left_out > 0 || b.always.large) {
    lines.push(el("p", { class: "banner warn" }, alwaysOnWarning(b), " See “What goes in each turn”."));
  }
  const yaml: string[] = [];
  if (result.book.token_budget) yaml.push(`budget_tokens: ${result.book.token_budget}`);
  if (result.character) yaml.push(`char: ${result.character}`);
  if (yaml.length > 0) {
    lines.push(
      el(
        "p",
        {},
        "The book's own settings, for settings.yaml in the vault (lorecards never writes that file itself):",
      ),
      el("pre", { class: "yaml", tabindex: 0, "aria-label": "settings.yaml lines" }, `${yaml.join("\n")}\n`),
    );
  }
  return lines.length ? el("div", { class: "import-budget" }, ...lines) : null;
}

async function showResult(box: HTMLElement, name: string, r: ImportResult, hooks: BookHooks): Promise<void> {
  // Without `into` the cards went into the vault's own (`main`), the book the page showed.
  const into = (r as { into?: { name: string; made: boolean } }).into ?? { name: "main", made: false };
  const where = into.name === "main" ? "the vault's own cards (main)" : `the book ${into.name}`;
  const summary = `Imported ${name} into ${where}${into.made ? " (new)" : ""}: ${r.created} new, ${r.overwritten} overwritten, ${r.kept} kept, ${r.skipped.length} skipped.`;
  const elsewhere = into.name !== currentBook();
  const parts = [
    el("p", { class: "summary" }, summary),
    // The list shows another book: one press shows the cards just imported.
    elsewhere
      ? el(
          "p",
          {},
          el(
            "button",
            { type: "button", class: "small", onclick: () => hooks.show(into.name) },
            `Show ${into.name === "main" ? "the vault's own cards" : `the book ${into.name}`}`,
          ),
        )
      : null,
    section(
      "Notes",
      r.notes.map((n) => el("li", {}, n)),
    ),
    section(
      "Worth fixing",
      r.checks.map((c) => cardLine(c.card, c.detail, hooks.open)),
    ),
    section(
      "Read with a warning",
      r.warnings.map((w) => el("li", {}, w)),
    ),
    section(
      "Skipped",
      r.skipped.map((s) => el("li", {}, `${s.title}: ${s.reason}`)),
    ),
    await budgetNote(r).catch(() => null),
  ];
  box.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  toast(summary + (r.checks.length ? ` ${plural(r.checks.length, "card")} worth fixing: see Import.` : ""));
}

export function buildBooks(body: HTMLElement, hooks: BookHooks): void {
  const file = el("input", {
    type: "file",
    accept: ".json,.png,.charx,application/json,image/png",
    name: "book",
  });
  const kind = el(
    "select",
    { name: "import-kind" },
    ...hooks.kinds.kinds.map((k) => el("option", { value: k.name, selected: k.name === "entry" }, k.name)),
  );
  // Into the file's own book as the CLI does (`?book=auto`, docs/BOOKS.md), or the one the page shows.
  const into = el(
    "select",
    { name: "import-into" },
    el(
      "option",
      { value: "auto", selected: true },
      "its own book, as lorecards import does (a character card: hers, bound to her; a lorebook: one named after it)",
    ),
    el("option", { value: "shown" }, "the book shown in the list"),
  );
  const force = el("input", { type: "checkbox", name: "force" });
  const progress = el("progress", { max: 1, value: 0, hidden: true, "aria-label": "Import progress" });
  const said = el("p", { class: "import-status", role: "status" });
  const result = el("div", { class: "import-result", "aria-live": "polite" });
  const button = el("button", { type: "submit" }, "Import");
  const run = async (chosen: File) => {
    button.disabled = true;
    progress.hidden = false;
    progress.removeAttribute("value");
    said.textContent = `Reading ${chosen.name}…`;
    result.replaceChildren();
    const query = new URLSearchParams({
      kind: kind.value,
      force: String(force.checked),
      filename: chosen.name,
      book: into.value === "shown" ? currentBook() : "auto",
    });
    try {
      const r = await importStream(`/api/import?${query}`, chosen, (done, total) => {
        progress.max = total;
        progress.value = done;
        said.textContent = `Writing the cards: ${Math.round((done / Math.max(total, 1)) * 100)}%`;
      });
      said.textContent = "";
      await showResult(result, chosen.name, r as ImportResult, hooks);
      hooks.imported();
    } catch (err) {
      said.textContent = "";
      const message = `Import of ${chosen.name} failed: ${errorText(err)}. Nothing was changed.`;
      result.replaceChildren(el("p", { class: "banner error", role: "alert" }, message));
      toast(message, { error: true });
    } finally {
      progress.hidden = true;
      button.disabled = false;
    }
  };
  const drop = el(
    "div",
    { class: "drop", "data-drop": "book" },
    el(
      "p",
      { class: "drop-hint" },
      "Drop a lorebook or a character card here (.json, .png, .charx), or pick one:",
    ),
    field("Lorebook or character card (.json, .png, .charx)", file),
  );
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const dropped = e.dataTransfer?.files[0];
    if (dropped) void run(dropped);
  });
  const importForm = el(
    "form",
    { class: "books", "aria-label": "Import a lorebook or character card" },
    drop,
    field("Import into", into),
    field("Import as kind", kind),
    el("label", { class: "check" }, force, " Overwrite cards that exist"),
    el("div", { class: "actions" }, button, progress),
    said,
    result,
  );
  importForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) {
      said.textContent = "Choose a lorebook or card file first, or drop one above.";
      return;
    }
    void run(chosen);
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
    void exportBook(format.value);
  });
  body.replaceChildren(importForm, exportForm);
}

async function exportBook(format: string): Promise<void> {
  try {
    const { blob, filename } = await download(`/api/export?format=${encodeURIComponent(format)}`);
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    toast(`Exported ${filename}.`);
  } catch (err) {
    toast(`Export failed: ${errorText(err)}`, { error: true });
  }
}

/** A file dropped anywhere else must not make the browser leave the editor to show it. */
export function guardDrops(): void {
  for (const type of ["dragover", "drop"]) {
    window.addEventListener(type, (e) => {
      if (!(e.target as HTMLElement).closest?.("[data-drop]")) e.preventDefault();
    });
  }
}
