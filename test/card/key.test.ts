import { describe, expect, test } from "bun:test";
import { keyFromTitle, validateKey } from "../../src/card/index.ts";
import { LoreError } from "../../src/errors.ts";

describe("validateKey", () => {
  test.each([
    ["empty", ""],
    ["blank", "   "],
    ["dot", "."],
    ["dot dot", ".."],
    ["a slash", "people/Alice"],
    ["a parent escape", "../etc/passwd"],
    ["a backslash", "a\\b"],
    ["an absolute path", "/etc/passwd"],
    ["a Windows absolute path", "C:\\Windows"],
    ["a drive letter", "C:"],
    ["NUL", "a\u0000b"],
    ["a newline", "a\nb"],
    ["a tab", "a\tb"],
    ["DEL", "a\u007fb"],
    ["CON", "CON"],
    ["con lower case", "con"],
    ["PRN", "PRN"],
    ["AUX", "aux"],
    ["NUL name", "NUL"],
    ["COM1", "COM1"],
    ["COM9", "com9"],
    ["LPT1", "LPT1"],
    ["LPT9 with an extension", "lpt9.txt"],
    ["CON with an extension", "con.md"],
    ["a trailing dot", "Alice."],
    ["a trailing space", "Alice "],
    ["a leading dot", ".hidden"],
    ["a wildcard", "a*b"],
    ["a question mark", "who?"],
    ["a colon", "Re: Zero"],
    ["quotes", 'say "hi"'],
    ["angle brackets", "<b>"],
    ["a pipe", "a|b"],
    ["over 200 bytes", "a".repeat(201)],
    ["over 200 bytes of CJK", "明".repeat(67)],
  ])("refuses %s", (_name, key) => {
    expect(() => validateKey(key)).toThrow(LoreError);
    try {
      validateKey(key);
    } catch (err) {
      expect((err as LoreError).code).toBe("invalid_key");
    }
  });

  test.each([
    "Alice",
    "小明",
    "the Friday deploy",
    "Zoë",
    "a".repeat(200),
    "明".repeat(66),
    "CONSOLE",
    "COM10",
    "a.b",
    "-dash",
  ])("accepts %p", (key) => {
    expect(validateKey(key)).toBe(key);
  });
});

describe("keyFromTitle", () => {
  test.each([
    ["Re: Zero", "Re- Zero"],
    ["a/b\\c", "a-b-c"],
    ["  spaced   out  ", "spaced out"],
    [".hidden.", "hidden"],
    ["CON", "CON_"],
    ["", "untitled"],
    ["小明", "小明"],
  ])("%p becomes %p", (title, key) => {
    expect(keyFromTitle(title)).toBe(key);
    expect(validateKey(keyFromTitle(title))).toBe(key);
  });

  test("long titles are cut to a legal length on a character boundary", () => {
    const key = keyFromTitle("明".repeat(100));
    expect(Buffer.byteLength(key)).toBeLessThanOrEqual(200);
    expect(validateKey(key)).toBe("明".repeat(66));
  });
});
