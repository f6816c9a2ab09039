// What one message shows: dictionary terms, emoji by property, measured traits; pasted parts skipped.
import { describe, expect, test } from "bun:test";
import { builtInReader } from "../../src/style/built-in.ts";
import { findEmoji, isOneEmoji } from "../../src/style/emoji.ts";
import { blankPasted, readMessage, voiceOf } from "../../src/style/sightings.ts";

const reader = builtInReader();
const signals = (text: string) =>
  readMessage(text, reader)
    .sightings.filter((s) => s.kind !== "voice")
    .map((s) => `${s.kind}:${s.signal}`);

describe("emoji are found by their Unicode properties", () => {
  test.each([
    ["one emoji", "nice 😭", ["😭"]],
    ["the presentation selector is dropped", "love ❤️ you ❤", ["❤", "❤"]],
    ["a ZWJ sequence is one emoji", "me 👩‍💻 coding", ["👩‍💻"]],
    ["a skin tone stays with its emoji", "👍🏽 ok", ["👍🏽"]],
    ["an emoji not in any dictionary", "🦭", ["🦭"]],
    ["typographic signs are not emoji", "© 2025 ™ ‼ ↔", []],
    ["…unless asked for as emoji", "©️", ["©"]],
    ["flags and keycaps are left out", "🇫🇷 1️⃣", []],
    ["plain ASCII has none", "hello :)", []],
  ])("%s", (_name, text, expected) => {
    expect(findEmoji(text).map((e) => e.emoji)).toEqual(expected);
  });

  test("a hint naming one emoji is recognised as one", () => {
    expect(isOneEmoji("😭")).toBe(true);
    expect(isOneEmoji("❤️")).toBe(true);
    expect(isOneEmoji("😭😭")).toBe(false);
    expect(isOneEmoji("lol 😭")).toBe(false);
  });
});

describe("a message's signals", () => {
  test("each signal counts once however often it occurs", () => {
    expect(signals("😭😭😭 lol lol LOL")).toEqual(["laughter:lol", "emoji:😭"]);
  });

  test("an emoji in the dictionary keeps its gloss; with a skin tone, its base's", () => {
    const [plain] = readMessage("💀", reader).sightings;
    expect(plain).toMatchObject({
      kind: "emoji",
      signal: "💀",
      note: "dying of laughter",
      source: "dictionary",
    });
    const [toned] = readMessage("👍🏿", reader).sightings;
    expect(toned).toMatchObject({ kind: "emoji", signal: "👍🏿", note: "okay, approval" });
  });

  test("an emoji no dictionary knows is still a habit, kept out of serious replies", () => {
    const [s] = readMessage("🦭", reader).sightings;
    expect(s).toMatchObject({
      kind: "emoji",
      signal: "🦭",
      source: "emoji",
      avoidWhen: ["formal", "serious", "legal", "medical"],
    });
  });

  test.each([
    ["fenced code", "look ```\nconst lol = 1; // 😭\n``` there", []],
    ["an unclosed fence runs to the end", "look ```\nlol 😭", []],
    ["inline code", "run `lol --fr` now", []],
    ["a link", "see https://example.com/lol?x=:) ok", []],
    ["an e-mail address", "mail lol@example.com", []],
    ["a quoted line", "> lol no cap\nok", []],
    ["the person's own words around them", "> quoted\nno cap 😭", ["slang:no cap", "emoji:😭"]],
  ])("%s is pasted, not said", (_name, text, expected) => {
    expect(signals(text)).toEqual(expected);
  });

  test("blanking keeps every position, so an example is cut from the message as written", () => {
    const text = "a `code` b https://x.y c";
    const blank = blankPasted(text);
    expect(blank.length).toBe(text.length);
    expect(blank).toBe(`a ${" ".repeat(6)} b ${" ".repeat(11)} c`);
  });

  test("positions point into the message even when folding changes its length", () => {
    const text = "ß……ok lol";
    const reading = readMessage(text, reader);
    const lol = reading.sightings.find((s) => s.signal === "lol")!;
    expect(reading.text.slice(lol.start, lol.end)).toBe("lol");
  });
});

describe("the measured traits of a message", () => {
  test.each([
    ["short Chinese", "好的", ["chinese", "short"]],
    ["short English, lowercase", "ok sounds good to me", ["english", "short", "lowercase"]],
    [
      "capitals as usual",
      "Sounds good, thank you for the quick fix on this one.",
      ["english", "medium", "capitals"],
    ],
    ["mixed languages", "这个 bug 我来 fix 一下 tomorrow", ["mixed", "short"]],
    ["long text", "word ".repeat(120), ["english", "long", "lowercase"]],
    ["only emoji: no language, still a length", "😭", ["short"]],
    ["empty", "", []],
  ])("%s", (_name, text, expected) => {
    expect(voiceOf(text)).toEqual(expected);
  });
});
