// $LORECARDS_STYLE_NOW, the style book's clock for end-to-end tests (cli/_style-clock.ts): an instant as
// milliseconds since the epoch or an ISO time; unset or empty is the system clock; anything else is a
// usage error naming the variable.
import { describe, expect, test } from "bun:test";
import { STYLE_NOW_ENV, styleNowFrom, styleOptions } from "../../src/cli/_style-clock.ts";
import { isLoreError } from "../../src/errors.ts";

describe("the style clock variable", () => {
  test.each([
    ["1767225600000", 1767225600000],
    ["2026-01-01T00:00:00Z", Date.parse("2026-01-01T00:00:00Z")],
    ["2026-03-15", Date.parse("2026-03-15")],
    [" 1767225600000 ", 1767225600000],
  ])("%p is the instant %p", (raw, at) => {
    expect(styleNowFrom({ [STYLE_NOW_ENV]: raw })).toBe(at);
  });

  test.each([[undefined], [""], ["  "]])("%p leaves the system clock", (raw) => {
    expect(styleNowFrom({ [STYLE_NOW_ENV]: raw })).toBeUndefined();
    expect(styleOptions({ [STYLE_NOW_ENV]: raw })).toEqual({ settings: {} });
  });

  test.each([["yesterday"], ["2026"], ["-5"], ["1e12"], ["99999999999999999999"]])(
    "%p is a usage error that names the variable",
    (raw) => {
      let caught: unknown;
      try {
        styleNowFrom({ [STYLE_NOW_ENV]: raw });
      } catch (err) {
        caught = err;
      }
      expect(isLoreError(caught) && caught.code).toBe("usage");
      expect(String((caught as Error).message)).toContain(STYLE_NOW_ENV);
    },
  );

  test("a set variable gives a clock frozen at that instant", () => {
    const { now } = styleOptions({ [STYLE_NOW_ENV]: "2026-02-01T00:00:00Z" });
    expect(now?.()).toBe(Date.parse("2026-02-01T00:00:00Z"));
    expect(now?.()).toBe(now?.());
  });
});
