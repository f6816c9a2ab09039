/**
 * The brief: what a model should know about how the person talks, in fixed sections (address, core
 * voice, expression patterns, punctuation and emoji, collaboration preferences, things to avoid),
 * each line tagged with its strength. Pure: habits in, items and text out.
 *
 * The items are the brief's content and what its revision numbers (the store hashes them, book.ts):
 * they hold strengths, not counts, so a sighting that changes no strength changes no revision. A
 * context only changes how the content is shown: the lines that must stay out of it (an entry's
 * `avoid_when`, or a `use_when` it lacks) are moved to "Things to avoid" for this reply, never
 * dropped, so a caller holding the revision still knows them for the next one.
 */

import { sha } from "./_ids.ts";
import { VOICE_GROUPS, VOICE_LINES } from "./sightings.ts";
import {
  BRIEF_SECTIONS,
  type BriefDelta,
  type BriefItem,
  type BriefSection,
  type BriefSectionId,
  type ContextTag,
  type Habit,
  type HabitKind,
} from "./types.ts";

export const SECTION_TITLES: Record<BriefSectionId, string> = {
  address: "Address",
  voice: "Core voice",
  expressions: "Expression patterns",
  punctuation: "Punctuation and emoji",
  collaboration: "Collaboration preferences",
  avoid: "Things to avoid",
};

/**
 * Lines a section holds at most: a brief stays short. Address and expression patterns have the hard
 * limits of style-memory-mcp's v2 brief (seed 003): two addresses per direction (one direction here:
 * how the person addresses the model) and five expression patterns.
 */
export const SECTION_CAPS: Record<BriefSectionId, number> = {
  address: 2,
  voice: 4,
  expressions: 5,
  punctuation: 6,
  collaboration: 6,
  avoid: 4,
};

const SECTION_OF: Record<HabitKind, BriefSectionId | undefined> = {
  address: "address",
  voice: "voice",
  slang: "expressions",
  abbreviation: "expressions",
  catchphrase: "expressions",
  laughter: "expressions",
  dialect: "expressions",
  idiolect: "expressions",
  emoji: "punctuation",
  emoticon: "punctuation",
  punctuation: "punctuation",
  preference: "collaboration",
};

export const DIALECTS: Record<string, string> = {
  "zh-sichuan": "Sichuan",
  "zh-cantonese": "Cantonese",
  "zh-northeast": "Northeastern",
  "zh-shanghai": "Shanghainese",
  "zh-minnan": "Min Nan (Taiwanese)",
  "en-gb": "British",
  "en-au": "Australian",
  "en-us-south": "Southern US",
  "en-us": "regional American",
};

/** Always said once there is anything to say. */
const LIGHTLY =
  "Mirror this lightly: a touch per reply at most, never mechanically, never every habit at once.";
/** Share of a voice group's sightings its leading trait needs to be named. */
const DOMINANT = 0.6;
const STRENGTH_RANK = { strong: 0, regular: 1, light: 2 } as const;

function byStrength(a: Habit, b: Habit): number {
  return (
    Number(b.pinned) - Number(a.pinned) ||
    STRENGTH_RANK[a.strength] - STRENGTH_RANK[b.strength] ||
    b.count - a.count ||
    b.lastSeen - a.lastSeen ||
    (a.signal < b.signal ? -1 : a.signal > b.signal ? 1 : 0)
  );
}

function tag(h: Pick<Habit, "strength" | "pinned">): string {
  return h.pinned ? `(${h.strength}, pinned)` : `(${h.strength})`;
}

function habitLine(h: Habit): string {
  const quoted = labelOf(h);
  const place = h.kind === "dialect" && DIALECTS[h.locale] ? ` (${DIALECTS[h.locale]})` : "";
  if (h.kind === "preference") return `${h.signal} ${tag(h)}`;
  if (h.kind === "address") return `${quoted} — how they address you ${tag(h)}`;
  const note = h.note ? ` — ${h.note}` : "";
  return `${quoted}${place}${note} ${tag(h)}`;
}

function labelOf(h: Habit): string {
  return h.kind === "emoji" || h.kind === "preference" ? h.signal : `"${h.signal}"`;
}

function item(h: Habit, section: BriefSectionId, line: string, label = labelOf(h)): BriefItem {
  return { id: h.id, section, label, line, avoidWhen: h.avoidWhen, useWhen: h.useWhen };
}

/** The voice lines: the dominant trait of each group, then the dialects used, by strength. */
function voiceItems(habits: Habit[]): BriefItem[] {
  const out: BriefItem[] = [];
  const voice = habits.filter((h) => h.kind === "voice" && h.state !== "archived");
  for (const group of VOICE_GROUPS) {
    const members = voice.filter((h) => group.includes(h.signal));
    const total = members.reduce((n, h) => n + h.count, 0);
    const lead = members.sort(byStrength).find((h) => h.state === "active" && h.count >= DOMINANT * total);
    const line = lead && VOICE_LINES[lead.signal];
    if (lead && line) out.push(item(lead, "voice", `${line} ${tag(lead)}`, line.toLowerCase()));
  }
  const dialects = new Map<string, Habit[]>();
  for (const h of habits) {
    if (h.kind !== "dialect" || h.state !== "active" || !DIALECTS[h.locale]) continue;
    dialects.set(h.locale, [...(dialects.get(h.locale) ?? []), h]);
  }
  // A dialect is named once two of its words are habits: one word is a word, two are a way of talking.
  const ranked = [...dialects]
    .filter(([, hs]) => hs.length >= 2)
    .map(([locale, hs]) => ({ locale, lead: hs.sort(byStrength)[0]!, n: hs.length }));
  ranked.sort((a, b) => byStrength(a.lead, b.lead) || (a.locale < b.locale ? -1 : 1));
  for (const { locale, lead, n } of ranked) {
    const label = `${DIALECTS[locale]} dialect`;
    const line = `Uses ${label} words (${n} so far) ${tag(lead)}`;
    out.push({
      id: `dialect:${locale}`,
      section: "voice",
      label,
      line,
      avoidWhen: lead.avoidWhen,
      useWhen: [],
    });
  }
  return out;
}

/**
 * The brief's content: its items in section order, each section capped, and at most `total` lines of
 * habits in all (settings.ts `brief_items`: the sections fill in their order).
 */
export function briefItems(habits: Habit[], total = Number.POSITIVE_INFINITY): BriefItem[] {
  const active = habits.filter((h) => h.state === "active").sort(byStrength);
  const bySection = new Map<BriefSectionId, BriefItem[]>(BRIEF_SECTIONS.map((s) => [s, []]));
  bySection.set("voice", voiceItems(habits));
  for (const h of active) {
    const section = SECTION_OF[h.kind];
    if (section === undefined || section === "voice") continue;
    bySection.get(section)!.push(item(h, section, habitLine(h)));
  }
  const out: BriefItem[] = [];
  for (const s of BRIEF_SECTIONS) {
    out.push(...bySection.get(s)!.slice(0, Math.min(SECTION_CAPS[s], total - out.length)));
  }
  if (out.length > 0) {
    out.push({ id: "avoid:lightly", section: "avoid", label: "", line: LIGHTLY, avoidWhen: [], useWhen: [] });
  }
  return out;
}

/** A hash of the content: equal items, equal hash. */
export function briefHash(items: BriefItem[]): string {
  return sha(JSON.stringify(items)).slice(0, 32);
}

/** True when an item must stay out of a reply in `context` (no context: nothing is held back). */
export function heldBack(i: BriefItem, context: ContextTag[]): boolean {
  if (context.length === 0) return false;
  if (i.avoidWhen.some((t) => context.includes(t))) return true;
  return i.useWhen.length > 0 && !i.useWhen.some((t) => context.includes(t));
}

const PLAIN: ContextTag[] = ["legal", "medical", "serious", "formal"];

/** What a context adds to "Things to avoid": the held-back lines by name, and a plain-reply line. */
export function contextLines(items: BriefItem[], context: ContextTag[]): string[] {
  const weighty = PLAIN.filter((t) => context.includes(t));
  const held = items.filter((i) => i.section !== "avoid" && heldBack(i, context));
  const lines: string[] = [];
  if (weighty.length > 0)
    lines.push(
      `This message looks ${weighty.join(" and ")}: keep this reply plain, without slang, emoji or jokes.`,
    );
  if (held.length > 0) {
    const names = held.slice(0, 8).map((i) => i.label);
    const more = held.length > 8 ? `, and ${held.length - 8} more` : "";
    lines.push(`Not in this reply: ${names.join(", ")}${more}.`);
  }
  return lines;
}

export function renderFull(
  items: BriefItem[],
  revision: number,
  context: ContextTag[],
): { sections: BriefSection[]; text: string } {
  const extra = contextLines(items, context);
  const sections = BRIEF_SECTIONS.map((id) => {
    const lines = items.filter((i) => i.section === id && !heldBack(i, context)).map((i) => i.line);
    return { id, title: SECTION_TITLES[id], lines: id === "avoid" ? [...extra, ...lines] : lines };
  });
  if (items.length === 0)
    return {
      sections,
      text: `Style brief (revision ${revision}): nothing learned about how this person talks yet.`,
    };
  const head = `Style brief (revision ${revision}): how this person talks.`;
  const body = sections
    .filter((s) => s.lines.length > 0)
    .map((s) => `${s.title}\n${s.lines.map((l) => `- ${l}`).join("\n")}`);
  return { sections, text: [head, ...body].join("\n\n") };
}

/** What changed from `before` to `after`, by item id. */
export function diffItems(before: BriefItem[], after: BriefItem[]): BriefDelta {
  const old = new Map(before.map((i) => [i.id, i]));
  const now = new Map(after.map((i) => [i.id, i]));
  const added = after.filter((i) => !old.has(i.id));
  const changed = after.filter((i) => old.has(i.id) && JSON.stringify(old.get(i.id)) !== JSON.stringify(i));
  const removed = before.filter((i) => !now.has(i.id));
  return { added, changed, removed };
}

export function renderDelta(
  delta: BriefDelta,
  items: BriefItem[],
  revision: number,
  since: number,
  context: ContextTag[],
): string {
  const line = (mark: string, i: BriefItem) => `${mark} ${SECTION_TITLES[i.section]}: ${i.line}`;
  const changes = [
    ...delta.added.map((i) => line("+", i)),
    ...delta.changed.map((i) => line("~", i)),
    ...delta.removed.map((i) => line("-", i)),
  ];
  const extra = contextLines(items, context).map((l) => `! ${l}`);
  return [`Style brief revision ${revision} (changes since ${since}):`, ...changes, ...extra].join("\n");
}

export function renderAck(items: BriefItem[], revision: number, context: ContextTag[]): string {
  return [`Style brief revision ${revision}: unchanged.`, ...contextLines(items, context)].join(" ");
}
