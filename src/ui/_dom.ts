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

/**
 * `text` with every place it holds one of `words` (lower-cased) wrapped in `<mark>`, as nodes to append.
 * Case is compared by lower-casing, which keeps positions where the two spellings are the same length.
 */
export function marked(text: string, words: readonly string[]): (string | HTMLElement)[] {
  const lower = text.toLowerCase();
  if (words.length === 0 || lower.length !== text.length) return [text];
  const hits: [number, number][] = [];
  for (const w of words) {
    for (let at = lower.indexOf(w); at >= 0 && w !== ""; at = lower.indexOf(w, at + w.length))
      hits.push([at, at + w.length]);
  }
  if (hits.length === 0) return [text];
  hits.sort((a, b) => a[0] - b[0]);
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  for (const [start, end] of hits) {
    if (end <= at) continue;
    const from = Math.max(start, at);
    if (from > at) out.push(text.slice(at, from));
    out.push(el("mark", {}, text.slice(from, end)));
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** Put `nodes` in `parent` in this order, moving as few as possible (a focused row stays focused). */
export function arrange(parent: HTMLElement, nodes: HTMLElement[]): void {
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(child as HTMLElement)) child.remove();
  let cursor = parent.firstElementChild;
  for (const node of nodes) {
    if (node === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(node, cursor);
  }
}

/** The manifest and icons are served at fixed paths; linked from here, as the HTML bundler would try to resolve them. */
export function linkAppAssets(): void {
  document.head.append(
    el("link", { rel: "manifest", href: "/manifest.webmanifest" }),
    el("link", { rel: "icon", href: "/icon.svg", type: "image/svg+xml" }),
    // iOS ignores an SVG here.
    el("link", { rel: "apple-touch-icon", href: "/icon-180.png", sizes: "180x180" }),
  );
}
