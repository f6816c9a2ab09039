import { describe, expect, test } from "bun:test";
import { keyFromTitle, keyProblem, pathKeyProblem, validateKey } from "../../src/card/index.ts";
import { LoreError } from "../../src/errors.ts";
import { expectLinear } from "../support/growth.ts";

describe("keys in sub-folders", () => {
  test("a writer's name is one file name: a slash is refused", () => {
    expect(keyProblem("people/Alice")).toBe('a card name cannot contain / \\ < > : " | ? *');
  });

  test.each(["family/Rin", "a/b/c", "小明/玲"])("the key %p of a card in a sub-folder is legal", (key) => {
    expect(pathKeyProblem(key)).toBeNull();
    expect(validateKey(key)).toBe(key);
  });

  test.each(["../etc", "/etc", "a//b", "a/", "a/.hidden", "a/CON", "a/b\\c"])(
    "the key %p is refused: each part must be a legal name",
    (key) => {
      expect(pathKeyProblem(key)).not.toBeNull();
    },
  );
});

describe("validateKey", () => {
  test.each([
    ["empty", ""],
    ["blank", "   "],
    ["dot", "."],
    ["dot dot", ".."],
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
    ["a device name with spaces before its extension", "aux .txt"],
    ["a C1 control character", "a\u0085b"],
    ["an unpaired surrogate", "a\ud800b"],
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

/** Unicode's Bidi_Control characters (UAX #9): they reorder how a name is shown, not what it is. */
const BIDI_CONTROLS = [
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
].map((cp) => [cp.toString(16).toUpperCase().padStart(4, "0"), String.fromCodePoint(cp)] as const);

describe("bidirectional controls in card names", () => {
  test.each(BIDI_CONTROLS)("a name with U+%s is refused as a control character", (_cp, control) => {
    const key = `invoice${control}txt.exe`;
    expect(() => validateKey(key)).toThrow(/control characters/);
  });

  test.each(BIDI_CONTROLS)("a title with U+%s becomes a name without it", (_cp, control) => {
    expect(keyFromTitle(`invoice${control}txt.exe`)).toBe("invoicetxt.exe");
  });
});

describe("Windows device names in titles", () => {
  test.each([
    ["aux.txt", "aux_.txt"],
    ["CON", "CON_"],
    ["nul.tar.gz", "nul_.tar.gz"],
    ["Com1.md", "Com1_.md"],
    ["lpt¹.log", "lpt¹_.log"],
    ["aux .txt", "aux_ .txt"],
    ["PRN...", "PRN_"],
    [`aux.${"x".repeat(300)}`, `aux_.${"x".repeat(195)}`],
  ])("%p becomes the legal name %p", (title, key) => {
    expect(keyFromTitle(title)).toBe(key);
    expect(validateKey(key)).toBe(key);
  });
});

describe("long titles", () => {
  test.each([
    ["ASCII", "a"],
    ["CJK", "明"],
    ["words", "lore "],
    ["dots and spaces", "x. "],
    ["emoji", "😀"],
  ])(
    "a 50,000-character %s title becomes a legal name, in time linear in its length",
    async (_name, unit) => {
      const title = (chars: number) => unit.repeat(Math.ceil(chars / unit.length));
      const key = keyFromTitle(title(50_000));
      expect(validateKey(key)).toBe(key);
      expect(Buffer.byteLength(key)).toBeGreaterThan(190);
      await expectLinear((chars) => keyFromTitle(title(chars)), 2_500, 50_000);
    },
  );
});
