import { describe, expect, test } from "bun:test";
import {
  cardHealth,
  classify,
  HEALTH_RULES,
  type HealthClass,
  healthSince,
  type UsageWindow,
} from "../../src/state/index.ts";

describe("card health: one card's class", () => {
  test.each<[number, number, HealthClass]>([
    [0, 0, "dead"],
    [1, 0, "healthy"],
    [2, 0, "healthy"],
    [3, 0, "underperforming"],
    [9, 0, "underperforming"],
    [10, 0, "noisy"],
    [10, 1, "noisy"],
    [10, 2, "healthy"],
    [19, 3, "noisy"],
    [20, 4, "healthy"],
    [3, 1, "healthy"],
    [9, 1, "healthy"],
    [11, 1, "noisy"],
    [30, 2, "noisy"],
    [5, 5, "healthy"],
  ])("a card listed %i times and opened %i times is %s", (recalled, opened, expected) => {
    expect(classify(recalled, opened)).toBe(expected);
  });

  test("the thresholds are the documented ones: 30 days; noisy 10 recalls under 20%; underperforming 3 under 10%", () => {
    expect(HEALTH_RULES).toEqual({
      windowDays: 30,
      noisy: { recalls: 10, openShare: 0.2 },
      underperforming: { recalls: 3, openShare: 0.1 },
    });
  });

  test("rules given replace the defaults", () => {
    const rules = {
      windowDays: 7,
      noisy: { recalls: 4, openShare: 0.5 },
      underperforming: HEALTH_RULES.underperforming,
    };
    expect(classify(4, 1, rules)).toBe("noisy");
    expect(classify(4, 2, rules)).toBe("healthy");
  });
});

describe("card health: a vault's report", () => {
  const usage: UsageWindow = {
    recalls: 12,
    cards: [
      { card: "people/Alice", recalled: 12, opened: 1, lastRecalled: 900, lastOpened: 500 },
      { card: "places/Lyon", recalled: 4, opened: 0, lastRecalled: 800, lastOpened: null },
      { card: "things/pen", recalled: 2, opened: 2, lastRecalled: 700, lastOpened: 750 },
      { card: "people/Gone", recalled: 3, opened: 0, lastRecalled: 600, lastOpened: null },
    ],
  };

  test("every card of the vault gets a class, worst first, then by id; cards no longer in the vault are left out", () => {
    const report = cardHealth(
      ["things/pen", "people/Alice", "events/quiet", "places/Lyon", "events/also-quiet"],
      usage,
      100,
    );
    expect(report).toEqual({
      since: "1970-01-01T00:00:00.100Z",
      windowDays: 30,
      recalls: 12,
      counts: { dead: 2, noisy: 1, underperforming: 1, healthy: 1 },
      cards: [
        {
          card: "events/also-quiet",
          class: "dead",
          recalled: 0,
          opened: 0,
          openRate: null,
          lastSeen: null,
          lastOpened: null,
        },
        {
          card: "events/quiet",
          class: "dead",
          recalled: 0,
          opened: 0,
          openRate: null,
          lastSeen: null,
          lastOpened: null,
        },
        {
          card: "people/Alice",
          class: "noisy",
          recalled: 12,
          opened: 1,
          openRate: 1 / 12,
          lastSeen: 900,
          lastOpened: 500,
        },
        {
          card: "places/Lyon",
          class: "underperforming",
          recalled: 4,
          opened: 0,
          openRate: 0,
          lastSeen: 800,
          lastOpened: null,
        },
        {
          card: "things/pen",
          class: "healthy",
          recalled: 2,
          opened: 2,
          openRate: 1,
          lastSeen: 700,
          lastOpened: 750,
        },
      ],
    });
  });

  test("a window with no recall judges nothing: index mode may simply be off", () => {
    expect(cardHealth(["people/Alice"], { recalls: 0, cards: [] }, 5)).toEqual({
      since: "1970-01-01T00:00:00.005Z",
      windowDays: 30,
      recalls: 0,
      counts: { dead: 0, noisy: 0, underperforming: 0, healthy: 0 },
      cards: [],
    });
  });

  test("the window starts 30 days before now", () => {
    expect(healthSince(Date.UTC(2025, 3, 1))).toBe(Date.UTC(2025, 2, 2));
  });
});
