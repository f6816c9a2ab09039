// The "Recall and adoption" panel: `GET /api/health/cards`, how each card fares in index recalls over the
// last 30 days (README "Index mode and adoption"): the counts per class, then the cards worth a look
// (noisy, underperforming, dead), each with how often an index listed it and an agent opened it. A
// card's name opens it in the editor.
import type { CardHealthReport } from "../api/types.ts";
import { api } from "./_client.ts";
import { el } from "./_dom.ts";

const SHOWN = 50;

const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);

export async function loadCardHealth(
  body: HTMLElement,
  open: (kind: string, key: string) => void,
): Promise<void> {
  const r = await api<CardHealthReport>("GET", "/api/health/cards");
  if (r.recalls === 0) {
    body.replaceChildren(
      el(
        "p",
        { class: "muted" },
        `No index recalls in the last ${r.window_days} days: cards are judged once the hook or the gateway ` +
          "runs with --inject index and an agent opens cards with read_card.",
      ),
    );
    return;
  }
  const c = r.counts;
  const worth = r.cards.filter((h) => h.class !== "healthy");
  const parts: (Node | null)[] = [
    el(
      "p",
      { class: "summary" },
      `Last ${r.window_days} days, ${r.recalls} index recall(s): ${c.dead} dead, ${c.noisy} noisy, ` +
        `${c.underperforming} underperforming, ${c.healthy} healthy.`,
    ),
    worth.length === 0
      ? el("p", { class: "muted" }, "Every card an index listed was opened often enough.")
      : el(
          "ul",
          { class: "recent-list card-health" },
          ...worth.slice(0, SHOWN).map((h) => {
            const [kind, ...rest] = h.card.split("/");
            return el(
              "li",
              { class: h.class },
              el("span", { class: "tag" }, h.class),
              el(
                "button",
                { type: "button", class: "link", onclick: () => open(kind!, rest.join("/")) },
                h.card,
              ),
              el("span", {}, `listed ${h.recalled}, opened ${h.opened} (${percent(h.open_rate)})`),
            );
          }),
        ),
    worth.length > SHOWN ? el("p", { class: "muted" }, `and ${worth.length - SHOWN} more`) : null,
  ];
  body.replaceChildren(...parts.filter((p): p is Node => p !== null));
}
