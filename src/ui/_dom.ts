// A few lines of DOM building so the page needs no framework: `el("button", {type: "button"}, "Save")`.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") node.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

export function $(selector: string): HTMLElement {
  const node = document.querySelector<HTMLElement>(selector);
  if (!node) throw new Error(`missing element ${selector}`);
  return node;
}

let uid = 0;
/** A unique id, so every control can have a `<label for>`. */
export function nextId(prefix: string): string {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A label + control pair; the control gets an id the label points at. */
export function field(label: string, control: HTMLElement, hint?: string, className = "field"): HTMLElement {
  control.id ||= nextId("f");
  const hintNode = hint ? el("small", { class: "hint", id: `${control.id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return el("div", { class: className }, el("label", { for: control.id }, label), control, hintNode);
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
