// Opening a panel loads it; two side panels: what surfaced lately (time, card keys, source — never the message text) and the
// health check (the findings of `lorecards check`, each naming the card it is about).
import type { Checkup, Recent } from "../api/types.ts";
import { api } from "./_client.ts";
import { $, el, formatTime } from "./_dom.ts";

/** Loads a panel's body each time it is opened, so it shows what is true now. */
export function onOpen(
  id: string,
  load: (body: HTMLElement) => Promise<void>,
  fail: (e: unknown) => void,
): void {
  const details = $(id) as HTMLDetailsElement;
  details.addEventListener("toggle", () => {
    if (details.open) load(details.querySelector(".panel-body")!).catch(fail);
  });
}

export async function loadRecent(body: HTMLElement): Promise<void> {
  const { hits } = await api<Recent>("GET", "/api/recent?limit=30");
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

export async function loadHealth(
  body: HTMLElement,
  open: (kind: string, key: string) => void,
): Promise<void> {
  const r = await api<Checkup>("GET", "/api/checkup");
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
