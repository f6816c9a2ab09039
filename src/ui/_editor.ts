// The card form, built from /api/kinds (never from hard-coded section names): the fields every card
// has, one text area per section of the card's kind, the private sections labelled "never injected",
// any section the person added by hand, the lorebook fields as controls (_lorebook.ts), the refs as
// a picker with the card's links (_refs.ts), and the frontmatter keys no control shows, as JSON.
import type { CardData, KindInfo, Kinds } from "../api/types.ts";
import { el, field } from "./_dom.ts";
import { readEditor } from "./_form-read.ts";
import { CONTROLLED, lorebookControls } from "./_lorebook.ts";
import type { Row } from "./_query.ts";
import { refsPicker } from "./_refs.ts";
import { sayInvalid } from "./_validity.ts";
import { kindNoun, plural } from "./_words.ts";

export interface EditorHandlers {
  save(body: Record<string, unknown>): void;
  archive(): void;
  back(): void;
  changeKind(kind: string): void;
  /** The vault's cards, for the refs picker. */
  cards(): readonly Row[];
}

export interface EditorTarget {
  kind: KindInfo;
  /** Absent for a new card. */
  card?: CardData;
  /** Prefill for a new card. */
  draft?: { title?: string; keywords?: string[] };
  /** The size of its public text, as the list knows it. */
  size?: { chars: number; tokens?: number };
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
    return el(
      "fieldset",
      { class: "sections" },
      el("legend", {}, "Text"),
      field("Card text (Markdown)", area("body", card?.body ?? "", 12)),
    );
  }
  const blocks = sectionList(kinds, kind, card).map((s) => {
    const label = s.private
      ? `${s.heading} — never injected`
      : s.own
        ? `${s.heading} (your own section)`
        : s.heading;
    const t = area(`section:${s.heading}`, card?.fields[s.heading] ?? "", s.private ? 2 : 3);
    t.dataset.heading = s.heading;
    return field(label, t, undefined, s.private ? "field private" : "field");
  });
  const preamble = card?.preamble
    ? field("Text before the first section", area("preamble", card.preamble, 2))
    : null;
  return el("fieldset", { class: "sections" }, el("legend", {}, "Sections"), preamble, ...blocks);
}

/** The frontmatter keys no control shows (a card's own keys, decorators), kept as written. */
function otherKeys(card?: CardData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(card?.extra ?? {})) if (!CONTROLLED.has(k)) out[k] = v;
  return out;
}

function advanced(card: CardData | undefined, handlers: EditorHandlers): HTMLElement {
  const sec = card?.secondary ?? { all: [], any: [], not: [], not_all: [] };
  const others = otherKeys(card);
  const extra = Object.keys(others).length > 0 ? JSON.stringify(others, null, 2) : "";
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
      field(
        "Scan depth (turns)",
        el("input", { type: "number", name: "scan_depth", min: 0, step: 1, value: card?.scan_depth ?? "" }),
        "how far back it looks; empty = the tool's",
      ),
      field(
        "Priority",
        el("input", { type: "number", name: "priority", step: 1, value: card?.priority ?? 0 }),
        "breaks ties between cards that match as well",
      ),
    ),
    refsPicker(card?.refs ?? [], handlers.cards),
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

/**
 * "412 characters · ≈103 tokens": what the card adds when it is sent, as its row in the list says it (the
 * same estimate, from the same answer), and said again when that answer comes (after a save).
 */
export function sizeInForm(form: HTMLFormElement, size: EditorTarget["size"]): void {
  const line = form.querySelector<HTMLElement>(".editor-head .size");
  if (!line) return;
  const tokens = size?.tokens;
  line.textContent = size
    ? [plural(size.chars, "character"), tokens !== undefined ? `≈${plural(tokens, "token")}` : null]
        .filter(Boolean)
        .join(" · ")
    : "";
  line.hidden = !size;
}

export function buildEditor(kinds: Kinds, target: EditorTarget, handlers: EditorHandlers): HTMLFormElement {
  const { card, kind } = target;
  const isNew = card === undefined;
  const title = textInput("title", card?.title ?? target.draft?.title ?? "", { required: true });
  const head = el(
    "div",
    { class: "editor-head" },
    el("button", { type: "button", class: "back", onclick: () => handlers.back() }, "← Cards"),
    el("h2", {}, isNew ? `New ${kindNoun(kind.name)} card` : card.title),
    isNew ? null : el("span", { class: "path" }, `${kind.dir ? `${kind.dir}/` : ""}${card.key}.md`),
    isNew ? null : el("span", { class: "size", title: "the public text, as sent (tokens estimated)" }),
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
    field("Tags", textInput("tags", words(card?.tags)), "your own labels to sort by; never sent"),
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
    lorebookControls(card),
    advanced(card, handlers),
    isNew
      ? null
      : el(
          "details",
          { class: "advanced links" },
          el("summary", {}, "Linked cards"),
          el("div", { class: "links-body" }),
        ),
    actions,
    el("div", { class: "form-slot", role: "status" }),
  );
  sizeInForm(form, target.size);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    try {
      handlers.save(readEditor(form, target));
    } catch (err) {
      alertInForm(form, (err as Error).message);
    }
  });
  sayInvalid(form, (message) => alertInForm(form, message));
  return form;
}

/** An error about the form, where the person is looking: beside the Save button, and at the top. */
export function alertInForm(form: HTMLFormElement, message: string): void {
  const banner = () => el("div", { class: "banner error", role: "alert" }, message);
  form.querySelector(".conflict-slot")!.replaceChildren(banner());
  form.querySelector(".form-slot")!.replaceChildren(el("div", { class: "banner error" }, message));
}

/** The card changed on disk after it was opened: the person chooses, nothing is overwritten silently. */
export function conflictInForm(form: HTMLFormElement, choose: { load(): void; overwrite(): void }): void {
  const banner = el(
    "div",
    { class: "banner conflict", role: "alert" },
    el("strong", {}, "This card changed on disk after you opened it. "),
    "Your edits are not saved yet.",
    el(
      "div",
      { class: "actions" },
      el("button", { type: "button", onclick: () => choose.load() }, "Load the version on disk"),
      el(
        "button",
        { type: "button", class: "danger", onclick: () => choose.overwrite() },
        "Overwrite it with mine",
      ),
    ),
  );
  form.querySelector(".conflict-slot")!.replaceChildren(banner);
  (banner.querySelector("button") as HTMLButtonElement).focus();
}

/** After a save: what the write checks found worth fixing in the card's words (the card is saved). */
export function warnInForm(form: HTMLFormElement, warnings: readonly { detail: string }[]): void {
  if (warnings.length === 0) return;
  const items = warnings.map((w) => el("li", {}, w.detail));
  const head = "Saved. Worth fixing in its trigger words:";
  form
    .querySelector(".conflict-slot")!
    .replaceChildren(el("div", { class: "banner warn", role: "status" }, head, el("ul", {}, ...items)));
}
