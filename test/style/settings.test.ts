// Style memory's settings (style/settings.ts): settings.yaml's `style:` mapping and the environment
// variables style-memory-mcp uses, the environment winning, every bad value ignored with a sentence
// naming where it was, and the rules the store then applies.
import { describe, expect, test } from "bun:test";
import { DAY, RULES } from "../../src/style/rules.ts";
import {
  describeStyleSettings,
  resolveStyleSettings,
  rulesOf,
  STYLE_DEFAULTS,
  styleSettingsFromEnv,
  styleSettingsIn,
} from "../../src/style/settings.ts";

describe("defaults", () => {
  test("are the rules' own: 2 sightings, 30 / 180 / 360 days, a 60-character example", () => {
    expect(STYLE_DEFAULTS).toMatchObject({
      promoteCount: 2,
      candidateTtlDays: 30,
      inactiveTtlDays: 180,
      archiveTtlDays: 360,
      exampleLength: 60,
    });
    const r = resolveStyleSettings(styleSettingsIn(""));
    expect(r.problems).toEqual([]);
    expect(Object.values(r.sources).every((s) => s === "default")).toBe(true);
    expect(rulesOf(r.settings)).toEqual(RULES);
  });
});

describe("settings.yaml", () => {
  test("each key under style: sets its setting", () => {
    const text = [
      "char: Seraphina",
      "style:",
      "  promote_count: 3",
      "  candidate_ttl_days: 7",
      "  inactive_ttl_days: 60",
      "  archive_ttl_days: 90",
      "  brief_items: 5",
      "  example_length: 20",
    ].join("\n");
    const r = resolveStyleSettings(styleSettingsIn(text));
    expect(r.problems).toEqual([]);
    expect(r.settings).toEqual({
      promoteCount: 3,
      candidateTtlDays: 7,
      inactiveTtlDays: 60,
      archiveTtlDays: 90,
      briefItems: 5,
      exampleLength: 20,
    });
    expect(r.sources.promoteCount).toBe("settings.yaml");
    expect(rulesOf(r.settings)).toMatchObject({
      gateSightings: 3,
      candidateTtl: 7 * DAY,
      deleteAfter: 90 * DAY,
    });
  });

  test.each([
    ["promote_count: 1", "style.promote_count must be a whole number from 2 to 1000, got 1"],
    ["example_length: -1", "style.example_length must be a whole number from 0 to 200, got -1"],
    [
      "candidate_ttl_days: soon",
      'style.candidate_ttl_days must be a whole number from 1 to 36500, got "soon"',
    ],
    ["brief_items: 2.5", "style.brief_items must be a whole number from 1 to 200, got 2.5"],
    ["promote: 3", "style.promote is not a style setting (promote_count,"],
  ])("%p is ignored, saying why", (line, problem) => {
    const r = resolveStyleSettings(styleSettingsIn(`style:\n  ${line}\n`));
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toContain(problem);
    expect(r.problems[0]).toContain("settings.yaml");
    expect(r.settings).toEqual({ ...STYLE_DEFAULTS });
  });

  test("style: that is not a mapping is one problem; a file that is not YAML is recall's to report", () => {
    expect(styleSettingsIn("style: 3").problems).toEqual([
      "settings.yaml: style must be a mapping of setting: value; ignored",
    ]);
    expect(styleSettingsIn("style: [\n").problems).toEqual([]);
  });

  test("an archive TTL not above the inactive one is raised to twice it, and that is said", () => {
    const r = resolveStyleSettings(
      styleSettingsIn("style:\n  inactive_ttl_days: 100\n  archive_ttl_days: 50\n"),
    );
    expect(r.settings.archiveTtlDays).toBe(200);
    expect(r.problems[0]).toContain("archive_ttl_days (50) must be more than inactive_ttl_days (100)");
  });
});

describe("the environment", () => {
  test("the variables style-memory-mcp reads set the same settings, over the file's", () => {
    const env = styleSettingsFromEnv({
      STYLE_MEMORY_MIN_PROMOTE_COUNT: "4",
      STYLE_MEMORY_CANDIDATE_TTL_DAYS: "10",
      STYLE_MEMORY_INACTIVE_TTL_DAYS: "90",
      STYLE_MEMORY_ARCHIVE_TTL_DAYS: "120",
      STYLE_MEMORY_MAX_BRIEF_ITEMS: "8",
      STYLE_MEMORY_MAX_EXAMPLE_LEN: " 30 ",
      STYLE_MEMORY_PATH: "/elsewhere.json",
    });
    expect(env.problems).toEqual([]);
    const r = resolveStyleSettings(
      styleSettingsIn("style:\n  promote_count: 3\n  example_length: 10\n"),
      env,
    );
    expect(r.settings).toEqual({
      promoteCount: 4,
      candidateTtlDays: 10,
      inactiveTtlDays: 90,
      archiveTtlDays: 120,
      briefItems: 8,
      exampleLength: 30,
    });
    expect(r.sources.promoteCount).toBe("$STYLE_MEMORY_MIN_PROMOTE_COUNT");
    expect(r.sources.exampleLength).toBe("$STYLE_MEMORY_MAX_EXAMPLE_LEN");
  });

  test("an empty variable is unset; a bad one is ignored naming the variable", () => {
    const env = styleSettingsFromEnv({
      STYLE_MEMORY_MIN_PROMOTE_COUNT: "",
      STYLE_MEMORY_MAX_EXAMPLE_LEN: "lots",
    });
    expect(env.settings).toEqual({});
    expect(env.problems).toEqual([
      '$STYLE_MEMORY_MAX_EXAMPLE_LEN must be a whole number from 0 to 200, got "lots"; ignored',
    ]);
  });
});

test("described, each line says its key, value and where it came from when not the default", () => {
  const r = resolveStyleSettings(styleSettingsIn("style:\n  promote_count: 3\n"), styleSettingsFromEnv({}));
  expect(describeStyleSettings(r, { onlySet: true })).toEqual([
    "promote_count: 3: sightings (in at least two conversations) before a habit is active (from settings.yaml)",
  ]);
  expect(describeStyleSettings(r)).toHaveLength(6);
});
