/**
 * What replay knows a message by (its key and its hash, `ChatView`), worked out once per text and
 * kept across requests (_chat.ts): a remembered answer must be the one the message would get fresh,
 * whoever sent it and in whatever order the texts were met.
 */

import { describe, expect, test } from "bun:test";
import { openaiAdapter } from "../../src/gateway/index.ts";

const viewOf = (messages: { role: string; content: unknown }[]) => {
  const view = openaiAdapter.read({ model: "m", messages });
  if (view === null) throw new Error("not a chat body");
  return view;
};

/** A text no other test meets, so its first look-up here is its first anywhere. */
let texts = 0;
const newText = (what: string) => `${what} ${Date.now()}-${texts++}`;

describe("message keys across requests", () => {
  test("a message met again has the key and hash it had the first time", () => {
    const text = newText("the harbor at dawn");
    const first = viewOf([{ role: "user", content: text }]);
    const firstKey = first.key(0);
    const firstHash = first.hash(0);
    const again = viewOf([
      { role: "system", content: "You are a friend." },
      { role: "user", content: text },
    ]);
    expect(again.key(1)).toBe(firstKey);
    expect(again.hash(1)).toBe(firstHash);
  });

  test.each([
    ["the person's first", ["user", "assistant"]],
    ["the model's first", ["assistant", "user"]],
  ])("the same text from the person and from the model is two messages (%s)", (_, roles) => {
    const text = newText("yes");
    const keys = roles.map((role) => viewOf([{ role: role!, content: text }]).key(0));
    const hashes = roles.map((role) => viewOf([{ role: role!, content: text }]).hash(0));
    expect(keys[0]).not.toBe(keys[1]);
    expect(hashes[0]).not.toBe(hashes[1]);
  });

  test("a message as a string and as one text part is the same message, remembered or not", () => {
    const text = newText("Alice called from Lyon");
    const asString = viewOf([{ role: "user", content: text }]);
    const asParts = viewOf([{ role: "user", content: [{ type: "text", text, cache_control: {} }] }]);
    const stringAgain = viewOf([{ role: "user", content: text }]);
    expect(asParts.key(0)).toBe(asString.key(0));
    expect(asParts.hash(0)).toBe(asString.hash(0));
    expect(stringAgain.key(0)).toBe(asParts.key(0));
  });

  test("a key is a user message's typed words: a client's wrapper around them is not part of it", () => {
    const text = newText("tell me about the blue notebook");
    const wrapped = `<system-reminder>\nToday's date is 2026-12-03.\n</system-reminder>\n${text}`;
    const plain = viewOf([{ role: "user", content: text }]).key(0);
    expect(viewOf([{ role: "user", content: wrapped }]).key(0)).toBe(plain);
    expect(viewOf([{ role: "user", content: wrapped }]).hash(0)).not.toBe(
      viewOf([{ role: "user", content: text }]).hash(0),
    );
  });
});
