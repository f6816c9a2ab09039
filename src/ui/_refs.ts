// A card's links: its `refs` picked from the vault's cards (a combobox: type part of a title, pick with
// the arrows and Enter or a click; APG "Combobox" with a listbox popup), shown as chips that a click
// removes; and the cards linked to it both ways (`GET /api/cards/{kind}/{key}/links`): the ones it
// names, the ones naming it, what its text would bring in by reach and the ones whose text mentions it.
import type { CardData, Links } from "../api/types.ts";
import { api, path } from "./_client.ts";
import { el, nextId } from "./_dom.ts";
import type { Row } from "./_query.ts";

const SUGGESTED = 8;

/** The refs field: chips for the refs set, and a combobox to add one. `cards()` is the vault's list. */
export function refsPicker(initial: readonly string[], cards: () => readonly Row[]): HTMLElement {
  const refs = [...initial];
  const id = nextId("refs");
  const chips = el("ul", { class: "ref-chips", "aria-label": "See also" });
  const hidden = el("input", { type: "hidden", name: "refs" });
  const list = el("ul", {
    role: "listbox",
    id: `${id}-list`,
    class: "suggest",
    hidden: true,
    "aria-label": "Cards",
  });
  const input = el("input", {
    type: "text",
    id,
    role: "combobox",
    autocomplete: "off",
    "aria-autocomplete": "list",
    "aria-expanded": "false",
    "aria-controls": list.id,
    placeholder: "Type part of a card's title",
  });
  let options: Row[] = [];
  let active = -1;
  const sync = () => {
    hidden.value = refs.join(", ");
    chips.replaceChildren(
      ...refs.map((r, i) =>
        el(
          "li",
          {},
          el("span", {}, r),
          el(
            "button",
            {
              type: "button",
              class: "small chip-x",
              "aria-label": `Remove ${r} from see also`,
              onclick: () => {
                refs.splice(i, 1);
                sync();
                hidden.dispatchEvent(new Event("input", { bubbles: true }));
                input.focus();
              },
            },
            "×",
          ),
        ),
      ),
    );
  };
  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };
  const add = (title: string) => {
    if (title && !refs.some((r) => r.toLowerCase() === title.toLowerCase())) refs.push(title);
    input.value = "";
    close();
    sync();
    hidden.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const show = () => {
    const q = input.value.trim().toLowerCase();
    options =
      q === ""
        ? []
        : cards()
            .filter((c) => c.title.toLowerCase().includes(q))
            .slice(0, SUGGESTED);
    list.replaceChildren(
      ...options.map((c, i) =>
        el(
          "li",
          {
            role: "option",
            id: `${id}-o${i}`,
            "aria-selected": i === active ? "true" : "false",
            onmousedown: (e: Event) => e.preventDefault(),
            onclick: () => add(c.title),
          },
          c.title,
          el("span", { class: "muted" }, ` ${c.kind}`),
        ),
      ),
    );
    list.hidden = options.length === 0;
    input.setAttribute("aria-expanded", String(options.length > 0));
    if (active >= 0 && options[active]) input.setAttribute("aria-activedescendant", `${id}-o${active}`);
    else input.removeAttribute("aria-activedescendant");
  };
  input.addEventListener("input", () => {
    active = -1;
    show();
  });
  input.addEventListener("blur", close);
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (options.length === 0) return show();
      active = (active + (e.key === "ArrowDown" ? 1 : -1) + options.length) % options.length;
      show();
    } else if (e.key === "Enter") {
      // Enter adds the highlighted card, or what was typed; it never submits the form.
      e.preventDefault();
      add(options[active]?.title ?? input.value.trim());
    } else if (e.key === "Escape" && !list.hidden) {
      e.preventDefault();
      close();
    }
  });
  sync();
  return el(
    "div",
    { class: "field refs" },
    el("label", { for: id }, "See also (refs)"),
    chips,
    el("div", { class: "combo" }, input, list),
    hidden,
    el("small", { class: "hint" }, "cards mentioned in one “see also” line when this one is sent"),
  );
}

type Open = (kind: string, key: string) => void;

function linkList(
  title: string,
  hint: string,
  items: { kind: string; key: string; title: string }[],
  open: Open,
): HTMLElement | null {
  if (items.length === 0) return null;
  return el(
    "div",
    { class: "links-part" },
    el("h4", { title: hint }, title, el("span", { class: "count" }, ` ${items.length}`)),
    el(
      "ul",
      { class: "links-list" },
      ...items.map((c) =>
        el(
          "li",
          {},
          el("button", { type: "button", class: "link", onclick: () => open(c.kind, c.key) }, c.title),
          el("span", { class: "muted" }, ` ${c.kind}`),
        ),
      ),
    ),
  );
}

/** Fills `box` with the open card's links; each name opens its card. */
export async function loadLinks(box: HTMLElement, card: CardData, open: Open): Promise<void> {
  const l = await api<Links>("GET", path(card.kind, card.key, "/links"));
  const missing = l.names.filter((n) => "missing" in n).map((n) => n.ref);
  const found = l.names.filter((n): n is Extract<typeof n, { kind: string }> => "kind" in n);
  const parts = [
    linkList("It names", "its refs: the “see also” line", found, open),
    linkList("Named by", "cards whose refs name this one", l.named_by, open),
    linkList("Its text brings in", "what reach would add when this card is sent", l.reaches, open),
    linkList(
      "Mentioned in",
      "cards whose text holds its title or a keyword: they can bring it in",
      l.mentioned_by,
      open,
    ),
    missing.length ? el("p", { class: "broken-note" }, `No card found for: ${missing.join(", ")}`) : null,
  ].filter((p): p is HTMLElement => p !== null);
  box.replaceChildren(
    ...(parts.length
      ? parts
      : [el("p", { class: "muted" }, "No card links to this one, and it links to none.")]),
  );
}
