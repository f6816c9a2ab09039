// What an agent may record as a collaboration preference, and what a reply's context is about.
import { describe, expect, test } from "bun:test";
import { contextTags } from "../../src/style/context.ts";
import { checkPreference, preferenceKey } from "../../src/style/profile.ts";

describe("a collaboration preference", () => {
  test.each([
    ["conclusions before details", "conclusions before details"],
    [
      "prefers value judgment before step-by-step implementation.",
      "prefers value judgment before step-by-step implementation",
    ],
    ["plan → implement → verify for technical work", "plan → implement → verify for technical work"],
    ["wants specific recommendations, not vague praise", "wants specific recommendations, not vague praise"],
    ["先给结论再展开", "先给结论再展开"],
    ["  short   answers \n first ", "short answers first"],
  ])("accepted: %s", (text, kept) => {
    expect(checkPreference(text)).toEqual({ ok: true, text: kept });
  });

  test.each([
    ["the user is introverted", /"introverted" is a personality label/],
    ["an INTJ, so be direct", /"intj" is a personality label/],
    ["性格内向，说话简短", /personality label/],
    ["has ADHD, keep answers short", /"adhd" reads as health or diagnosis/],
    ["keep it light because of depression", /health or diagnosis/],
    ["有抑郁，回复温和一点", /health or diagnosis/],
    ["lives in Lyon so use metric", /"lives in" is a private fact/],
    ["mention his wife rarely", /"wife" is a private fact/],
    ["住在上海，用上海话", /private fact/],
    ["the user is a nurse", /says what the person is/],
    ["she seems to like short replies", /says what the person is/],
    ["用户是程序员", /says what the person is/],
    ["send drafts to ann@example.com", /credential, link, e-mail or phone/],
    ["ok", /too short/],
    ["", /empty/],
    [`prefers ${"very ".repeat(20)}short answers`, /under 80 characters/],
  ])("refused: %s", (text, reason) => {
    const got = checkPreference(text);
    expect(got.ok).toBe(false);
    expect(got.ok ? "" : got.reason).toMatch(reason);
  });

  test("text that is not text is refused", () => {
    expect(checkPreference(42)).toEqual({ ok: false, reason: "a preference is text" });
  });

  test("two wordings of the same preference share a key", () => {
    expect(preferenceKey("The user prefers conclusions before details.")).toBe(
      preferenceKey("conclusions before details"),
    );
    expect(preferenceKey("Prefers: conclusions, before details")).toBe("conclusions before details");
  });
});

describe("the context of a reply", () => {
  test.each([
    ["lol what should we eat", ["casual"]],
    ["", ["casual"]],
    ["my lawyer says the contract clause is void", ["legal"]],
    ["the doctor changed my dosage", ["medical"]],
    ["my grandmother passed away last night", ["serious"]],
    ["help me write a cover letter", ["formal"]],
    ["the deploy fails with this error", ["casual", "technical"]],
    ["```\nconst x = 1\n```", ["casual", "technical"]],
    ["律师说合同有问题", ["legal"]],
    ["医生说要手术", ["medical"]],
    ["帮我写一封求职信", ["formal"]],
    ["代码报错了", ["casual", "technical"]],
    ["an issue with the lawsuit and the bug", ["technical", "legal"]],
    ["the issue is a tissue", ["casual"]],
  ])("%s → %j", (text, tags) => {
    expect(contextTags(text)).toEqual(tags as never);
  });
});
