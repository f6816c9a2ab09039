// Feedback that stays in view: a toast at the bottom of the screen, wherever the person scrolled to. A
// confirmation fades after a while (longer when it offers an action, such as Undo); an error stays until
// dismissed. Every toast has a close button, and Escape closes the newest. The region is a live region,
// so a screen reader reads each toast as it comes.
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
const FADE_WITH_ACTION_MS = 15_000;
const MAX_SHOWN = 4;

export function toast(message: string, opts: ToastOptions = {}): HTMLElement {
  const host = $("#toasts");
  const close = () => item.remove();
  const item = el(
    "div",
    { class: opts.error ? "toast error" : "toast", role: opts.error ? "alert" : "status" },
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
  host.append(item);
  while (host.children.length > MAX_SHOWN) host.firstElementChild!.remove();
  if (!opts.error) setTimeout(close, opts.action ? FADE_WITH_ACTION_MS : FADE_MS);
  return item;
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
