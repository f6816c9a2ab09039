// The card form, built from /api/kinds (never from hard-coded section names): the fields every card
// has, one text area per section of the card's kind, the private sections labelled "never injected",
// any section the user added by hand, and the other frontmatter keys as JSON.
import { el, field } from "./_dom.ts";
import type { CardData, KindInfo, Kinds } from "./_types.ts";

export interface EditorHandlers {
  save(body: Record<string, unknown>): void;
  archive(): void;
  back(): void;
  changeKind(kind: string): void;
}

export interface EditorTarget {
  kind: KindInfo;
  /** Absent for a new card. */
  card?: CardData;
  /** Prefill for a new card. */
  draft?: { title?: string; keywords?: string[] };
}

const words = (list: readonly string[] | undefined) => (list ?? []).join(", ");

function textInput(
  name: string,
  value: string,
  attrs: Record<string, string | boolean> = {},
): HTMLInputElement {
  return el("input", { type: "text", name, value, autocomplete: "off", ...attrs });
}

function area(name: string, value: string, rows = 3): HTMLTextAreaElement {
  const t = el("textarea", { name, rows });
  t.value = value;
  return t;
}

function sectionList(
  kinds: Kinds,
  kind: KindInfo,
  card?: CardData,
): { heading: string; private: boolean; own: boolean }[] {
  const out = kind.sections.map((h) => ({ heading: h, private: false, own: false }));
  for (const h of kinds.private_sections) out.push({ heading: h, private: true, own: false });
  for (const h of Object.keys(card?.fields ?? {})) {
    if (!out.some((s) => s.heading.toLowerCase() === h.toLowerCase()))
      out.push({ heading: h, private: false, own: true });
  }
  return out;
}

function sections(kinds: Kinds, target: EditorTarget): HTMLElement {
  const { kind, card } = target;
  if (kind.sections.length === 0) {
    const body = area("body", card?.body ?? "", 12);
    return el(
      "fieldset",
      { class: "sections" },
      el("legend", {}, "Text"),
      field("Card text (Markdown)", body),
    );
  }
  const blocks = sectionList(kinds, kind, card).map((s) => {
    const value = card?.fields[s.heading] ?? "";
    const label = s.private
      ? `${s.heading} — never injected`
      : s.own
        ? `${s.heading} (your own section)`
        : s.heading;
    const t = area(`section:${s.heading}`, value, s.private ? 2 : 3);
    t.dataset.heading = s.heading;
    return field(label, t, undefined, s.private ? "field private" : "field");
  });
  const preamble = card?.preamble
    ? field("Text before the first section", area("preamble", card.preamble, 2))
    : null;
  return el("fieldset", { class: "sections" }, el("legend", {}, "Sections"), preamble, ...blocks);
}

function advanced(card?: CardData): HTMLElement {
  const sec = card?.secondary ?? { all: [], any: [], not: [], not_all: [] };
  const extra = card && Object.keys(card.extra).length > 0 ? JSON.stringify(card.extra, null, 2) : "";
  return el(
    "details",
    { class: "advanced" },
    el("summary", {}, "More settings"),
    el(
      "div",
      { class: "grid" },
      field("Also needs all of", textInput("sec_all", words(sec.all)), "comma-separated"),
      field("Also needs any of", textInput("sec_any", words(sec.any)), "comma-separated"),
      field("Never when", textInput("sec_not", words(sec.not)), "checked in the triggering message"),
      field("Never when all of", textInput("sec_not_all", words(sec.not_all)), "comma-separated"),
      field("See also (refs)", textInput("refs", words(card?.refs)), "card names"),
      field(
        "Scan depth (turns)",
        el("input", { type: "number", name: "scan_depth", min: 0, value: card?.scan_depth ?? "" }),
      ),
      field("Priority", el("input", { type: "number", name: "priority", value: card?.priority ?? 0 })),
    ),
    field("Other frontmatter (JSON)", area("extra", extra, 3), "kept as written; e.g. emails"),
  );
}

function kindSelect(kinds: Kinds, target: EditorTarget, handlers: EditorHandlers): HTMLElement {
  const select = el(
    "select",
    { name: "kind", onchange: (e: Event) => handlers.changeKind((e.target as HTMLSelectElement).value) },
    ...kinds.kinds.map((k) => el("option", { value: k.name, selected: k.name === target.kind.name }, k.name)),
  );
  return field("Kind", select);
}

export function buildEditor(kinds: Kinds, target: EditorTarget, handlers: EditorHandlers): HTMLFormElement {
  const { card, kind } = target;
  const isNew = card === undefined;
  const title = textInput("title", card?.title ?? target.draft?.title ?? "", { required: true });
  const head = el(
    "div",
    { class: "editor-head" },
    el("button", { type: "button", class: "back", onclick: () => handlers.back() }, "← Cards"),
    el("h2", {}, isNew ? `New ${kind.name} card` : card.title),
    isNew ? null : el("span", { class: "path" }, `${kind.dir ? `${kind.dir}/` : ""}${card.key}.md`),
  );
  const basics = el(
    "div",
    { class: "grid" },
    isNew ? kindSelect(kinds, target, handlers) : null,
    field("Title", title),
    isNew ? field("File name", textInput("key", ""), "optional; taken from the title") : null,
    field(
      "Keywords",
      textInput("keywords", words(card?.keywords ?? target.draft?.keywords)),
      "comma-separated",
    ),
    field("Aliases", textInput("aliases", words(card?.aliases)), "other names, comma-separated"),
  );
  const toggles = el(
    "div",
    { class: "toggles" },
    el(
      "label",
      { class: "check" },
      el("input", { type: "checkbox", name: "enabled", checked: card?.enabled ?? true }),
      " Enabled",
    ),
    el(
      "label",
      { class: "check" },
      el("input", { type: "checkbox", name: "inject", checked: card?.inject ?? true }),
      " Injected automatically",
    ),
  );
  const actions = el(
    "div",
    { class: "actions" },
    el("button", { type: "submit", class: "primary" }, isNew ? "Create card" : "Save"),
    isNew
      ? null
      : el("button", { type: "button", class: "danger", onclick: () => handlers.archive() }, "Archive"),
    el("span", { class: "shortcut" }, "Ctrl+S saves"),
  );
  const form = el(
    "form",
    { class: "card-form", "aria-label": isNew ? "New card" : `Edit ${card.title}` },
    head,
    el("div", { class: "conflict-slot" }),
    basics,
    toggles,
    sections(kinds, target),
    advanced(card),
    actions,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    try {
      handlers.save(readEditor(form, target));
    } catch (err) {
      alertInForm(form, (err as Error).message);
    }
  });
  return form;
}

export function alertInForm(form: HTMLFormElement, message: string): void {
  const slot = form.querySelector(".conflict-slot")!;
  slot.replaceChildren(el("div", { class: "banner error", role: "alert" }, message));
}

/** After a save: what the write checks found worth fixing in the card's words (the card is saved). */
export function warnInForm(form: HTMLFormElement, warnings: readonly { detail: string }[]): void {
  if (warnings.length === 0) return;
  const slot = form.querySelector(".conflict-slot")!;
  const items = warnings.map((w) => el("li", {}, w.detail));
  const head = "Saved. Worth fixing in its trigger words:";
  slot.replaceChildren(el("div", { class: "banner warn", role: "status" }, head, el("ul", {}, ...items)));
}

const value = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement | null)?.value ?? "";
const checked = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | null)?.checked ?? true;
const split = (text: string) =>
  text
    .split(/[,，、]/)
    .map((w) => w.trim())
    .filter(Boolean);

/** The form as an API request body (without mtime; the caller adds the one it read). */
export function readEditor(form: HTMLFormElement, target: EditorTarget): Record<string, unknown> {
  const body: Record<string, unknown> = {
    kind: target.kind.name,
    title: value(form, "title").trim(),
    keywords: split(value(form, "keywords")),
    aliases: split(value(form, "aliases")),
    refs: split(value(form, "refs")),
    secondary: {
      all: split(value(form, "sec_all")),
      any: split(value(form, "sec_any")),
      not: split(value(form, "sec_not")),
      not_all: split(value(form, "sec_not_all")),
    },
    scan_depth: value(form, "scan_depth") === "" ? null : Number(value(form, "scan_depth")),
    priority: value(form, "priority") === "" ? 0 : Number(value(form, "priority")),
    enabled: checked(form, "enabled"),
    inject: checked(form, "inject"),
  };
  const key = value(form, "key").trim();
  if (key) body.key = key;
  const extra = value(form, "extra").trim();
  try {
    body.extra = extra === "" ? {} : JSON.parse(extra);
  } catch {
    throw new Error('Other frontmatter must be a JSON object, e.g. {"emails": ["a@example.com"]}');
  }
  if (target.kind.sections.length === 0) {
    body.body = value(form, "body");
  } else {
    const fields: Record<string, string> = {};
    for (const t of form.querySelectorAll<HTMLTextAreaElement>("textarea[data-heading]"))
      fields[t.dataset.heading!] = t.value;
    body.fields = fields;
    body.preamble = value(form, "preamble");
  }
  return body;
}

/** Add a word to the open form's keywords (the "one-click keyword" of the try box). */
export function addKeyword(form: HTMLFormElement, word: string): boolean {
  const input = form.elements.namedItem("keywords") as HTMLInputElement | null;
  if (!input) return false;
  const list = split(input.value);
  if (!list.some((w) => w.toLowerCase() === word.toLowerCase())) list.push(word);
  input.value = list.join(", ");
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus();
  return true;
}
