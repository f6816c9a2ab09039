// The brief from habits: fixed sections, strength tags, caps, the context filter, deltas and acks.
import { describe, expect, test } from "bun:test";
import { answer } from "../../src/style/_revisions.ts";
import { briefHash, briefItems, diffItems, renderFull, SECTION_CAPS } from "../../src/style/brief.ts";
import type { ContextTag, Habit, HabitKind } from "../../src/style/types.ts";

let n = 0;
function habit(kind: HabitKind, signal: string, over: Partial<Habit> = {}): Habit {
  n++;
  return {
    id: `${kind}-${signal}`,
    signal,
    kind,
    locale: "en",
    useWhen: [],
    avoidWhen: kind === "voice" || kind === "preference" ? [] : ["formal", "serious", "legal", "medical"],
    source: "dictionary",
    state: "active",
    pinned: false,
    count: 2,
    hints: 0,
    conversations: 2,
    firstSeen: 0,
    lastSeen: n,
    strength: "light",
    ...over,
  };
}

const HABITS: Habit[] = [
  habit("address", "bro", { strength: "regular", count: 6 }),
  habit("voice", "lowercase", { count: 9, strength: "regular" }),
  habit("voice", "capitals", { count: 1 }),
  habit("voice", "mixed", { count: 5 }),
  habit("voice", "chinese", { count: 4 }),
  habit("slang", "no cap", { note: "for real, no lie", count: 14, conversations: 5, strength: "strong" }),
  habit("dialect", "巴适", { locale: "zh-sichuan", note: "舒服, 好" }),
  habit("dialect", "要得", { locale: "zh-sichuan", note: "好, 行" }),
  habit("laughter", "haha", { pinned: true }),
  habit("emoji", "😭", {
    note: "overwhelmed; often laughing, not sad",
    count: 7,
    conversations: 3,
    strength: "regular",
  }),
  habit("abbreviation", "lgtm", { useWhen: ["technical", "casual"], note: "looks good to me" }),
  habit("preference", "conclusions before details"),
  habit("slang", "yyds", { state: "candidate" }),
  habit("slang", "sus", { state: "archived" }),
];

describe("the full brief", () => {
  test("fixed sections in order, each line tagged with its strength", () => {
    expect(renderFull(briefItems(HABITS), 3, []).text).toMatchInlineSnapshot(`
"Style brief (revision 3): how this person talks.

Address
- "bro" — how they address you (regular)

Core voice
- Types in lowercase, without capitals (regular)
- Uses Sichuan dialect words (2 so far) (light)

Expression patterns
- "haha" (light, pinned)
- "no cap" — for real, no lie (strong)
- "lgtm" — looks good to me (light)
- "要得" (Sichuan) — 好, 行 (light)
- "巴适" (Sichuan) — 舒服, 好 (light)

Punctuation and emoji
- 😭 — overwhelmed; often laughing, not sad (regular)

Collaboration preferences
- conclusions before details (light)

Things to avoid
- Mirror this lightly: a touch per reply at most, never mechanically, never every habit at once."
`);
  });

  test("every section is there, empty or not", () => {
    const { sections } = renderFull(briefItems([habit("slang", "no cap")]), 1, []);
    expect(sections.map((s) => [s.id, s.lines.length])).toEqual([
      ["address", 0],
      ["voice", 0],
      ["expressions", 1],
      ["punctuation", 0],
      ["collaboration", 0],
      ["avoid", 1],
    ]);
  });

  test("candidates and archived habits are not in it", () => {
    const lines = briefItems(HABITS).map((i) => i.line);
    expect(lines.some((l) => l.includes("yyds") || l.includes("sus"))).toBe(false);
  });

  test("a voice trait is named only when it leads its group", () => {
    const split = [habit("voice", "chinese", { count: 5 }), habit("voice", "english", { count: 5 })];
    expect(briefItems(split).filter((i) => i.section === "voice")).toEqual([]);
    const lead = [habit("voice", "chinese", { count: 7 }), habit("voice", "english", { count: 3 })];
    expect(briefItems(lead).map((i) => i.line)).toContain("Writes mostly in Chinese (light)");
  });

  test("at most five expression patterns and two addresses, the hard limits of the v2 brief (seed 003)", () => {
    const many = (kind: HabitKind) =>
      Array.from({ length: 9 }, (_, i) => habit(kind, `${kind}${i}`, { count: 2 + i }));
    const items = briefItems([...many("catchphrase"), ...many("address")]);
    expect(items.filter((i) => i.section === "expressions")).toHaveLength(5);
    expect(items.filter((i) => i.section === "address")).toHaveLength(2);
  });

  test("a section holds at most its cap, strongest first", () => {
    const many = Array.from({ length: 20 }, (_, i) => habit("slang", `s${i}`, { count: 2 + i }));
    const lines = briefItems(many).filter((i) => i.section === "expressions");
    expect(lines).toHaveLength(SECTION_CAPS.expressions);
    expect(lines[0]!.label).toBe('"s19"');
  });

  test("nothing learned: no items, a one-line brief", () => {
    expect(briefItems([])).toEqual([]);
    expect(renderFull([], 0, []).text).toBe(
      "Style brief (revision 0): nothing learned about how this person talks yet.",
    );
  });
});

describe("the context filter", () => {
  const items = briefItems(HABITS);
  const render = (context: ContextTag[]) => renderFull(items, 3, context).sections;

  test("a medical context moves slang, dialect and emoji to things to avoid, by name", () => {
    const sections = render(["medical"]);
    expect(sections.find((s) => s.id === "expressions")!.lines).toEqual([]);
    expect(sections.find((s) => s.id === "avoid")!.lines.slice(0, 2)).toEqual([
      "This message looks medical: keep this reply plain, without slang, emoji or jokes.",
      'Not in this reply: "bro", Sichuan dialect, "haha", "no cap", "lgtm", "要得", "巴适", 😭.',
    ]);
    // Voice and preferences are for every context.
    expect(sections.find((s) => s.id === "collaboration")!.lines).toEqual([
      "conclusions before details (light)",
    ]);
    expect(sections.find((s) => s.id === "voice")!.lines).toEqual([
      "Types in lowercase, without capitals (regular)",
    ]);
  });

  test("a term for some contexts only is held back from the others", () => {
    const sections = render(["casual"]);
    expect(sections.find((s) => s.id === "expressions")!.lines.join()).toContain("lgtm");
    const formal = render(["formal"])
      .find((s) => s.id === "avoid")!
      .lines.join();
    expect(formal).toContain('"lgtm"');
  });

  test("the context never changes the content: same items, same hash", () => {
    expect(briefHash(briefItems(HABITS))).toBe(briefHash(items));
  });
});

describe("answers to a caller holding a revision", () => {
  const before = briefItems(HABITS.slice(0, 6));
  const after = briefItems([
    ...HABITS.slice(0, 5),
    habit("slang", "no cap", { note: "for real, no lie", strength: "regular" }),
    habit("emoji", "✨"),
  ]);
  const kept = (r: number) => (r === 2 ? before : undefined);

  test("the current revision: a short ack", () => {
    expect(answer(after, 3, [], 3, kept)).toEqual({
      kind: "ack",
      revision: 3,
      context: [],
      text: "Style brief revision 3: unchanged.",
    });
  });

  test("an ack still says what to hold back in a weighty context", () => {
    const a = answer(after, 3, ["legal"], 3, kept);
    expect(a.text).toBe(
      'Style brief revision 3: unchanged. This message looks legal: keep this reply plain, without slang, emoji or jokes. Not in this reply: "bro", "no cap", ✨.',
    );
  });

  test("a kept older revision: the changes only", () => {
    const a = answer(after, 3, [], 2, kept);
    expect(a.kind).toBe("delta");
    expect(a.text).toMatchInlineSnapshot(`
"Style brief revision 3 (changes since 2):
+ Punctuation and emoji: ✨ (light)
~ Expression patterns: "no cap" — for real, no lie (regular)"
`);
    expect(diffItems(before, after).removed).toEqual([]);
  });

  test("an unknown, newer or forgotten revision: the full brief", () => {
    for (const since of [undefined, 0, 1, 4, 99]) expect(answer(after, 3, [], since, kept).kind).toBe("full");
  });
});
