// Feedback that stays in view: a toast at the bottom of the screen, wherever the person scrolled to. A
// confirmation fades after a while; an error stays until dismissed, and so does a toast that offers an
// action (Undo): a person who looked away must still find it, so never the clock nor a stream of
// confirmations takes it away; only their dismissing it, a newer action's toast, or their moving on to
// another card or the list (an Undo left over from the view before reads as about the one shown; every
// step is still undone from Recent changes). Every toast has a close
// button, and Escape closes the newest. The region is a live region, so a screen reader reads each toast
// as it comes.
import { $, el } from "./_dom.ts";

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface ToastOptions {
  error?: boolean;
  action?: ToastAction;
  /** More lines under the message (a list of notes, of cards refused). */
  details?: (string | Node)[];
}

const FADE_MS = 6000;
const MAX_SHOWN = 4;

export function toast(message: string, opts: ToastOptions = {}): HTMLElement {
  const host = $("#toasts");
  const close = () => item.remove();
  const item = el(
    "div",
    {
      class: opts.error ? "toast error" : "toast",
      role: opts.error ? "alert" : "status",
      ...(opts.action && { "data-action": "" }),
    },
    el(
      "div",
      { class: "toast-body" },
      el("p", {}, message),
      opts.details?.length
        ? el(
            "ul",
            { class: "toast-details" },
            opts.details.map((d) => el("li", {}, d)),
          )
        : null,
    ),
    opts.action
      ? el(
          "button",
          {
            type: "button",
            class: "small",
            onclick: () => {
              close();
              opts.action!.run();
            },
          },
          opts.action.label,
        )
      : null,
    el("button", { type: "button", class: "small close", "aria-label": "Dismiss", onclick: close }, "×"),
  );
  // A newer action replaces the older one's toast (the older step is still undone from Recent changes).
  if (opts.action) dropOffers();
  host.append(item);
  // Too many: the oldest go, an action's toast last.
  while (host.children.length > MAX_SHOWN)
    ([...host.children].find((t) => !t.hasAttribute("data-action")) ?? host.firstElementChild!).remove();
  if (!opts.error && !opts.action) setTimeout(close, FADE_MS);
  return item;
}

/** The view changed (another card, the list): the toasts offering an action on the view before go. */
export function dropOffers(): void {
  for (const t of $("#toasts").querySelectorAll("[data-action]")) t.remove();
}

/** Escape closes the newest toast (when nothing else, a dialog or a menu, takes Escape first). */
export function toastKeys(): void {
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || e.defaultPrevented) return;
    const newest = $("#toasts").lastElementChild;
    if (newest) {
      newest.remove();
      e.preventDefault();
    }
  });
}
