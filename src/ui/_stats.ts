// The "What it costs" panel: `GET /api/stats` for the last two weeks — a bar per day (what the input
// cost, beside what the original strip-and-reinject would have cost), the totals and the saving, the
// most expensive conversations and the cards blamed for cache misses (README "What it costs"). The
// chart is plain SVG drawn here; its colours come from style.css (the page allows no inline style).
import { api } from "./_client.ts";
import { el } from "./_dom.ts";

/** The figures of a day or a total, as `/api/stats` gives them (only what the panel shows). */
interface Figures {
  turns: number;
  measured: number;
  cost: number;
  counterfactual_cost: number;
  saving: number;
  saving_ratio: number | null;
  cache_hit_ratio: number | null;
}

interface Stats {
  since: string;
  days: (Figures & { day: string })[];
  totals: Figures;
  conversations: (Figures & { id: string; surface: string })[];
  blame: { card: string; misses: number }[];
}

const DAYS = 7;
const SVG = "http://www.w3.org/2000/svg";

const whole = (n: number) => Math.round(n).toLocaleString();
const percent = (r: number | null) => (r === null ? "–" : `${(r * 100).toFixed(1)}%`);

export async function loadStats(body: HTMLElement): Promise<void> {
  const stats = await api<Stats>("GET", `/api/stats?days=${DAYS}`);
  const t = stats.totals;
  if (t.turns === 0) {
    body.replaceChildren(
      el(
        "p",
        { class: "muted" },
        "No turns recorded yet: the gateway records each chat turn and the usage its answer reports.",
      ),
    );
    return;
  }
  const saved = t.saving >= 0 ? `saved ${whole(t.saving)}` : `spent ${whole(-t.saving)} more`;
  const parts: (Node | null)[] = [
    el(
      "p",
      { class: "summary" },
      `Last ${DAYS} days: ${whole(t.turns)} turns, input cost ${whole(t.cost)} (uncached-token equivalents); ` +
        `strip-and-reinject would have cost ${whole(t.counterfactual_cost)}: ${saved} (${percent(t.saving_ratio)}). ` +
        `Read from the cache: ${percent(t.cache_hit_ratio)}.`,
    ),
    chart(stats),
    el(
      "p",
      { class: "legend" },
      el("span", { class: "swatch cost" }),
      " cost ",
      el("span", { class: "swatch counterfactual" }),
      " strip-and-reinject",
    ),
    stats.conversations.length
      ? el(
          "ul",
          { class: "recent-list stats-list" },
          ...stats.conversations.map((c) =>
            el(
              "li",
              {},
              el("span", { class: "keys", title: c.id }, c.id),
              el("span", {}, `${whole(c.cost)} · ${percent(c.saving_ratio)}`),
              el("span", { class: "tag" }, c.surface),
            ),
          ),
        )
      : null,
    stats.blame.length
      ? el(
          "p",
          { class: "blame" },
          "Cache misses blamed on: ",
          stats.blame.map((b) => `${b.card} (${b.misses})`).join(", "),
        )
      : null,
  ];
  body.replaceChildren(...parts.filter((p): p is Node => p !== null));
}

/** Every day of the window, the quiet ones at zero, oldest first. */
function daysOfWindow(stats: Stats): (Figures & { day: string })[] {
  const byDay = new Map(stats.days.map((d) => [d.day, d]));
  const start = Date.parse(`${stats.since}T00:00:00Z`);
  return Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, ...ZERO };
  });
}

const ZERO: Figures = {
  turns: 0,
  measured: 0,
  cost: 0,
  counterfactual_cost: 0,
  saving: 0,
  saving_ratio: null,
  cache_hit_ratio: null,
};

function chart(stats: Stats): SVGSVGElement {
  const days = daysOfWindow(stats);
  const width = 280;
  const height = 90;
  const slot = width / days.length;
  const top = Math.max(1, ...days.flatMap((d) => [d.cost, d.counterfactual_cost]));
  const svg = svgEl("svg", {
    class: "stats-chart",
    viewBox: `0 0 ${width} ${height + 14}`,
    role: "img",
    "aria-label": `Input cost per day, beside what strip-and-reinject would have cost, ${days[0]!.day} to ${days.at(-1)!.day}`,
  });
  days.forEach((d, i) => {
    const x = i * slot;
    const bar = (value: number, dx: number, kind: string) => {
      const h = (value / top) * height;
      const rect = svgEl("rect", { class: kind, x: x + dx, y: height - h, width: slot * 0.38, height: h });
      rect.append(
        svgEl("title", {}, `${d.day}: ${kind === "cost" ? "cost" : "strip-and-reinject"} ${whole(value)}`),
      );
      return rect;
    };
    svg.append(bar(d.counterfactual_cost, slot * 0.5, "counterfactual"), bar(d.cost, slot * 0.1, "cost"));
    // The first day, a week on, and the last: the outer labels kept inside the box.
    const last = i === days.length - 1;
    if (i % 7 === 0 || last) {
      const [at, anchor] = i === 0 ? [x, "start"] : last ? [x + slot, "end"] : [x + slot / 2, "middle"];
      svg.append(svgEl("text", { x: at, y: height + 12, "text-anchor": anchor }, d.day.slice(5)));
    }
  });
  return svg;
}

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}
