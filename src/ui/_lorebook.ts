// The lorebook fields of a card (docs/CARDS.md "Lorebook fields"), one control each with its meaning in
// one line, grouped as a person thinks of them. A field left at its default is not written. A field the
// person did not touch goes back exactly as the file has it (inside `extra`, kept as written: an imported
// `position: 4` stays 4); a field they changed goes at the top level of the body, where the server checks
// it as `lorecards check` reads it and refuses a value it could not use, naming the field.
import type { CardData } from "../api/types.ts";
import { el, field } from "./_dom.ts";
import { type Control, GROUPS } from "./_lorebook-fields.ts";

const FIELDS = GROUPS.flatMap((g) => g.controls);
/** The lorebook fields that have a control (`decorators` stays in “Other frontmatter”, as written). */
export const CONTROLLED: ReadonlySet<string> = new Set(FIELDS.map((c) => c.field));

/** A value as the control shows it: the card's resolved rule when the file sets the field. */
function shown(card: CardData | undefined, name: string): string {
  // `inject: false` without `context:` is "only when asked"; the form shows it so.
  if (name === "context" && card?.inject === false && !("context" in card.extra)) return "manual";
  if (!card || !(name in card.extra)) return "";
  const rules = card.rules as Record<string, unknown>;
  const value = name in rules ? rules[name] : card.extra[name];
  if (value === null || value === undefined) return "";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

function control(c: Control, card: CardData | undefined): HTMLElement {
  const value = shown(card, c.field);
  const attrs = { name: `lb:${c.field}`, "data-field": c.field, "data-was": value, title: c.hint };
  if (c.type === "check") {
    const box = el("input", { type: "checkbox", ...attrs, checked: value === "true" });
    return el("label", { class: "check", title: c.hint }, box, ` ${c.label}`);
  }
  if (c.type === "select") {
    // A value the list does not know (a hand-written place) stays choosable as it is.
    const options = c.options.some(([v]) => v === value)
      ? c.options
      : [...c.options, [value, value] as [string, string]];
    const select = el(
      "select",
      attrs,
      ...options.map(([v, label]) => el("option", { value: v, selected: v === value }, label)),
    );
    return field(c.label, select, c.hint);
  }
  const input =
    c.type === "number"
      ? el("input", {
          type: "number",
          inputmode: "decimal",
          min: c.min,
          max: c.max,
          step: c.step,
          value,
          ...attrs,
        })
      : el("input", { type: "text", autocomplete: "off", value, ...attrs });
  return field(c.label, input, c.hint);
}

/** The “Lorebook settings” part of the form. */
export function lorebookControls(card: CardData | undefined): HTMLElement {
  const set = FIELDS.filter((c) => shown(card, c.field) !== "").length;
  return el(
    "details",
    { class: "advanced lorebook" },
    el("summary", {}, "Lorebook settings", set > 0 ? el("span", { class: "count" }, ` (${set} set)`) : null),
    ...GROUPS.map((g) =>
      el(
        "fieldset",
        { class: "lb-group" },
        el("legend", {}, g.legend),
        el("div", { class: "grid" }, ...g.controls.map((c) => control(c, card))),
      ),
    ),
  );
}

function current(input: HTMLInputElement | HTMLSelectElement): string {
  return input instanceof HTMLInputElement && input.type === "checkbox"
    ? input.checked
      ? "true"
      : ""
    : input.value.trim();
}

function typed(c: Control, text: string): unknown {
  if (c.type === "check") return true;
  if (c.type === "number") return Number(text);
  if (c.type === "words")
    return text
      .split(/[,，、]/)
      .map((w) => w.trim())
      .filter(Boolean);
  return text === "true" ? true : text === "false" ? false : text;
}

/**
 * The lorebook fields as the body sends them: `changed` at the top level (checked by the server), the
 * untouched ones in `kept` exactly as the file has them; a field cleared is in neither (so removed).
 */
export function readLorebook(
  form: HTMLFormElement,
  card: CardData | undefined,
): { changed: Record<string, unknown>; kept: Record<string, unknown>; inject: boolean } {
  const changed: Record<string, unknown> = {};
  const kept: Record<string, unknown> = {};
  let inject = true;
  for (const c of FIELDS) {
    const input = form.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-field="${c.field}"]`);
    if (!input) continue;
    const now = current(input);
    const untouched = now === input.dataset.was;
    // A card that says `inject: false` keeps saying so until "Sent" is changed.
    if (c.field === "context" && untouched && card?.inject === false && !("context" in card.extra)) {
      inject = false;
      continue;
    }
    if (now === "") continue;
    if (untouched && card && c.field in card.extra) kept[c.field] = card.extra[c.field];
    else changed[c.field] = typed(c, now);
  }
  return { changed, kept, inject };
}
