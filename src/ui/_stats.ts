// The "What it costs" panel: `GET /api/stats` for the last two weeks — a bar per day (what the input
// cost, beside what the original strip-and-reinject would have cost), the totals and the saving, the
// most expensive conversations and the cards blamed for cache misses (README "What it costs"). The
// chart is plain SVG drawn here; its colours come from style.css (the page allows no inline style).
import type { Stats } from "../api/types.ts";
import { api } from "./_client.ts";
import { el } from "./_dom.ts";

/** What a bar of the chart shows of a day. */
type Bar = Pick<Stats["days"][number], "day" | "cost" | "counterfactual_cost">;

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
      `Last ${DAYS} days: ${whole(t.turns)} turns. What the prompts cost: ${whole(t.cost)} tokens' worth ` +
        `(cached tokens counted at their lower price). Sending every card afresh each turn, as the original tool did, ` +
        `would have cost ${whole(t.counterfactual_cost)}: ${saved} (${percent(t.saving_ratio)}). ` +
        `Share of the prompt read from the provider's cache: ${percent(t.cache_hit_ratio)}.`,
    ),
    el(
      "p",
      {
        class: "hint",
        title: "cost: input tokens in uncached-token equivalents; the counterfactual is strip-and-reinject",
      },
      "Bars: what each day's prompts cost, beside what sending every card afresh would have cost (the scale: the highest bar).",
    ),
    chart(stats),
    el(
      "p",
      { class: "legend" },
      el("span", { class: "swatch cost" }),
      " what it cost ",
      el("span", { class: "swatch counterfactual" }),
      " sending every card afresh",
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
function daysOfWindow(stats: Stats): Bar[] {
  const byDay = new Map(stats.days.map((d) => [d.day, d]));
  const start = Date.parse(`${stats.since}T00:00:00Z`);
  return Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, cost: 0, counterfactual_cost: 0 };
  });
}

/** Compact axis numbers: 950, 12k, 3.4M. */
const short = (n: number) =>
  n >= 1e6
    ? `${(n / 1e6).toFixed(1)}M`
    : n >= 1e4
      ? `${Math.round(n / 1e3)}k`
      : n >= 1e3
        ? `${(n / 1e3).toFixed(1)}k`
        : whole(n);

function chart(stats: Stats): SVGSVGElement {
  const days = daysOfWindow(stats);
  const axis = 30;
  const width = 310;
  const height = 90;
  const slot = (width - axis) / days.length;
  const top = Math.max(1, ...days.flatMap((d) => [d.cost, d.counterfactual_cost]));
  const svg = svgEl("svg", {
    class: "stats-chart",
    viewBox: `0 0 ${width} ${height + 14}`,
    role: "img",
    "aria-label": `What each day's prompts cost in tokens, beside what sending every card afresh would have cost, ${days[0]!.day} to ${days.at(-1)!.day}; the highest bar is ${whole(top)}`,
  });
  // The scale: tokens' worth at the top and at zero, and the baseline.
  svg.append(
    svgEl("text", { x: axis - 4, y: 8, "text-anchor": "end" }, short(top)),
    svgEl("text", { x: axis - 4, y: height, "text-anchor": "end" }, "0"),
    svgEl("line", { class: "axis", x1: axis, y1: 0, x2: axis, y2: height }),
    svgEl("line", { class: "axis", x1: axis, y1: height, x2: width, y2: height }),
  );
  days.forEach((d, i) => {
    const x = axis + i * slot;
    const bar = (value: number, dx: number, kind: string) => {
      const h = (value / top) * height;
      const rect = svgEl("rect", { class: kind, x: x + dx, y: height - h, width: slot * 0.38, height: h });
      rect.append(
        svgEl(
          "title",
          {},
          `${d.day}: ${kind === "cost" ? "what it cost" : "sending every card afresh"} ${whole(value)}`,
        ),
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
