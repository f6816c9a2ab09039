// The style book's one-time initialisation, distillation, health score and settings (style/init.ts,
// _seed.ts, score.ts, settings.ts) over a real store on a fake clock.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStyle, type StyleBook, type StyleOptions } from "../../src/style/index.ts";
import { readInit } from "../../src/style/init.ts";
import { DAY } from "../../src/style/rules.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const T0 = Date.parse("2026-02-01T12:00:00Z");
const dirs: string[] = [];
const books: StyleBook[] = [];

afterEach(async () => {
  for (const b of books.splice(0)) await b.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function open(options: StyleOptions = {}, root = tempDir()) {
  if (!dirs.includes(root)) dirs.push(root);
  const clock = { t: T0 };
  const book = await openStyle(root, { now: () => clock.t, warn: () => {}, ...options });
  books.push(book);
  return { root, book, clock };
}

const AGGREGATES = {
  action: "submit",
  sessions: 6,
  days: 21,
  voice: { language: "english", length: "short" },
  response_preferences: { structure: "conclusion_first", emoji: "welcome" },
  collaboration_preferences: ["plan, then implement, then verify"],
  expressions: [{ signal: "tiny but mighty" }, { signal: "ship it", kind: "catchphrase" }],
};

describe("what an initialisation may hold", () => {
  test.each([
    [
      "a raw message",
      { ...AGGREGATES, messages: ["hi"] },
      '"messages" is refused: raw messages are never kept',
    ],
    [
      "session titles",
      { ...AGGREGATES, session_titles: ["Fix CI"] },
      '"session_titles" is refused: session titles',
    ],
    ["a name", { ...AGGREGATES, name: "Ann" }, '"name" is refused: identity and address are never taken'],
    ["a nickname in voice", { ...AGGREGATES, voice: { nickname: "Annie" } }, '"voice.nickname" is refused'],
    ["an unknown field", { ...AGGREGATES, mood: "tired" }, '"mood" is not a field of the initialisation'],
    ["13 sessions", { ...AGGREGATES, sessions: 13 }, "sessions must be a whole number from 1 to 12"],
    ["31 days back", { ...AGGREGATES, days: 31 }, "days must be a whole number from 1 to 30"],
    [
      "a voice not measured",
      { ...AGGREGATES, voice: { language: "klingon" } },
      "voice.language must be one of",
    ],
    [
      "a response preference not offered",
      { ...AGGREGATES, response_preferences: { tone: "snarky" } },
      "tone must be one of",
    ],
    [
      "four expressions",
      { ...AGGREGATES, expressions: [{ signal: "a" }, { signal: "b" }, { signal: "c" }, { signal: "d" }] },
      "expressions is a list of at most 3 candidates",
    ],
    [
      "an expression with a quote",
      { ...AGGREGATES, expressions: [{ signal: "lol", example: "lol that was wild" }] },
      '"expressions[0].example" is refused',
    ],
    [
      "a personality label",
      { ...AGGREGATES, collaboration_preferences: ["is introverted"] },
      "personality label",
    ],
    ["a skip with data", { action: "skip", sessions: 3 }, 'a skip carries nothing else ("sessions")'],
    ["nothing at all", { action: "submit", sessions: 2, days: 5 }, "nothing to record"],
  ])("%s is refused", (_, raw, reason) => {
    expect(readInit(raw)).toContain(reason);
  });

  test("aggregates and a skip are read", () => {
    expect(readInit({ action: "skip" })).toEqual({ action: "skip" });
    expect(readInit(AGGREGATES)).toMatchObject({
      action: "submit",
      sessions: 6,
      voice: ["english", "short"],
      preferences: [
        "prefers the conclusion before the details",
        "welcomes emoji in replies",
        "plan, then implement, then verify",
      ],
    });
  });
});

describe("one-time initialisation", () => {
  test("an empty store asks for it; aggregates over several sessions are active, expressions candidates", async () => {
    const { book } = await open();
    expect((await book.initialization()).state).toBe("needed");
    const result = await book.initialize(AGGREGATES);
    expect(result.status).toBe("initialized");
    const habits = await book.list();
    const by = new Map(habits.map((h) => [h.signal, h]));
    expect(by.get("english")).toMatchObject({
      kind: "voice",
      state: "active",
      count: 6,
      conversations: 6,
      source: "init",
    });
    expect(by.get("prefers the conclusion before the details")).toMatchObject({
      kind: "preference",
      state: "active",
    });
    expect(by.get("tiny but mighty")).toMatchObject({ state: "candidate", count: 1, hints: 1 });
    expect(by.get("ship it")?.state).toBe("candidate");
    const brief = await book.brief();
    expect(brief.text).toContain("prefers the conclusion before the details");
    expect(brief.text).toContain("Keeps messages short");
    expect(brief.text).not.toContain("tiny but mighty");
    expect(await book.initialization()).toMatchObject({ state: "done", at: T0 });
  });

  test("it is made once: a second submission, or a skip after it, is answered 'already'", async () => {
    const { book } = await open();
    expect(await book.initialize({ action: "skip" })).toEqual({ status: "skipped" });
    const again = await book.initialize(AGGREGATES);
    expect(again).toMatchObject({ status: "already" });
    expect(await book.list()).toEqual([]);
    expect((await book.initialization()).state).toBe("skipped");
  });

  test("the choice persists in the store across processes", async () => {
    const { root, book } = await open();
    await book.initialize({ action: "skip" });
    const { book: later } = await open({}, root);
    expect((await later.initialization()).state).toBe("skipped");
  });

  test("a store that has learned does not need it; a refused submission records nothing and stays open", async () => {
    const { book } = await open();
    expect(await book.initialize({ ...AGGREGATES, text: "raw" })).toMatchObject({ status: "refused" });
    expect((await book.initialization()).state).toBe("needed");
    await book.observe("c1", "no cap");
    expect((await book.initialization()).state).toBe("not_needed");
    expect(await book.initialize(AGGREGATES)).toMatchObject({ status: "already" });
  });

  test("one session makes candidates only: the gate still wants two conversations", async () => {
    const { book } = await open();
    await book.initialize({ ...AGGREGATES, sessions: 1 });
    expect((await book.list()).every((h) => h.state === "candidate")).toBe(true);
  });

  test("paused learning records nothing and keeps the question open", async () => {
    const { book } = await open();
    await book.pause();
    expect(await book.initialize(AGGREGATES)).toEqual({ status: "paused" });
    expect((await book.initialization()).state).toBe("needed");
  });
});

describe("distillation", () => {
  test("expressions are one sighting each behind the gate; reviewed preferences are active at once", async () => {
    const { book } = await open();
    const first = await book.distill("conv-1", {
      expressions: [{ signal: "tiny but mighty" }],
      preferences: ["conclusions before details"],
    });
    expect(first.expressions[0]).toMatchObject({
      status: "recorded",
      habit: { state: "candidate", count: 1 },
    });
    expect(first.preferences[0]).toMatchObject({ status: "recorded", habit: { state: "active" } });
    // The same call again in the same conversation never activates an expression.
    await book.distill("conv-1", { expressions: [{ signal: "tiny but mighty" }] });
    expect((await book.list()).find((h) => h.signal === "tiny but mighty")?.state).toBe("candidate");
    await book.distill("conv-2", { expressions: [{ signal: "tiny but mighty" }] });
    expect((await book.list()).find((h) => h.signal === "tiny but mighty")?.state).toBe("active");
  });

  test.each([
    [
      "four expressions",
      { expressions: ["a b", "c d", "e f", "g h"].map((signal) => ({ signal })) },
      "at most 3",
    ],
    [
      "nine preferences",
      { preferences: Array.from({ length: 9 }, (_, i) => `prefers option ${i + 1}`) },
      "at most 8",
    ],
    ["nothing", {}, "nothing to distill"],
  ])("%s is refused whole", async (_, input, message) => {
    const { book } = await open();
    expect(book.distill("c", input)).rejects.toThrow(message);
    expect(await book.list()).toEqual([]);
  });

  test("a label among preferences is refused on its own; the others are kept", async () => {
    const { book } = await open();
    const r = await book.distill("c", { preferences: ["is an introvert", "wants tests before code"] });
    expect(r.preferences.map((p) => p.status)).toEqual(["refused", "recorded"]);
  });
});

describe("the health score", () => {
  async function learned(book: StyleBook, phrases: string[]) {
    for (const conv of ["a", "b"]) for (const p of phrases) await book.observe(conv, p);
  }

  test("an empty store is not ready and scores 0", async () => {
    const { book } = await open();
    const s = await book.score();
    expect(s).toMatchObject({ score: 0, readiness: { level: "empty", active: 0 }, drift: { level: "low" } });
    expect(s.brief.refreshRecommended).toBe(false);
  });

  test("three active habits are ready; a brief not fetched since it changed should be", async () => {
    const { book } = await open();
    await learned(book, ["no cap", "ngl", "lowkey"]);
    const s = await book.score();
    expect(s.readiness).toMatchObject({ level: "ready", active: 3 });
    expect(s.brief.refreshRecommended).toBe(true);
    const brief = await book.brief();
    expect((await book.score()).brief.refreshRecommended).toBe(false);
    expect((await book.score({ since: brief.revision })).brief.refreshRecommended).toBe(false);
    expect((await book.score({ since: brief.revision - 1 })).brief.refreshRecommended).toBe(true);
  });

  test("habits unseen for more than half the inactive TTL are drift", async () => {
    const { book, clock } = await open();
    await learned(book, ["no cap", "ngl", "lowkey"]);
    clock.t += 100 * DAY;
    const s = await book.score();
    expect(s.drift).toMatchObject({ level: "high", fading: 3, fadingAfterDays: 90 });
    expect(s.score).toBe(50);
    expect(s.advice.join(" ")).toContain("unseen for over 90 days");
  });

  test("many strong habits to copy are an over-imitation risk", async () => {
    const { book } = await open();
    // Twelve sightings in four conversations make each of the four strong.
    for (const conv of ["a", "b", "c", "d"])
      for (let i = 0; i < 3; i++) await book.observe(conv, "no cap ngl lowkey fr");
    const s = await book.score();
    expect(s.overImitation.level).toBe("high");
    expect(s.overImitation.strong).toBeGreaterThanOrEqual(4);
  });
});

describe("settings the book applies", () => {
  test("promote_count in settings.yaml keeps a habit a candidate until seen that often", async () => {
    const { root, book } = await open();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  promote_count: 3\n");
    await book.observe("a", "no cap");
    await book.observe("b", "no cap");
    expect((await book.list())[0]?.state).toBe("candidate");
    await book.observe("b", "no cap");
    expect((await book.list()).find((h) => h.signal === "no cap")?.state).toBe("active");
  });

  test("the environment's candidate TTL wins over the file's", async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  candidate_ttl_days: 20\n");
    const { book, clock } = await open({ settings: { candidateTtlDays: 5 } }, root);
    await book.observe("a", "no cap");
    clock.t += 6 * DAY;
    expect(await book.list()).toEqual([]);
    expect((await book.settings()).sources.candidateTtlDays).toBe("$STYLE_MEMORY_CANDIDATE_TTL_DAYS");
  });

  test("example_length cuts the example kept; 0 keeps none", async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  example_length: 12\n");
    const { book } = await open({}, root);
    await book.observe("a", "no cap, that was the best pizza I ever had, honestly");
    const kept = (await book.list()).find((h) => h.signal === "no cap");
    expect(kept?.example?.length).toBeLessThanOrEqual(12);
    expect(kept?.example).toContain("no cap");
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  example_length: 0\n");
    await book.observe("a", "ngl that was fun");
    expect((await book.list()).find((h) => h.signal === "ngl")?.example).toBeUndefined();
  });

  test("brief_items caps the lines of habits in the whole brief", async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  brief_items: 2\n");
    const { book } = await open({}, root);
    for (const conv of ["a", "b"]) await book.observe(conv, "no cap ngl lowkey fr 😭");
    const full = await book.brief();
    if (full.kind !== "full") throw new Error("expected a full brief");
    const lines = full.sections.filter((s) => s.id !== "avoid").flatMap((s) => s.lines);
    expect(lines).toHaveLength(2);
  });
});
