import { expect, test } from "bun:test";
import { requiredLiterals } from "../../src/match/literal.ts";

test.each([
  ["a plain word", "dragon", ["dragon"]],
  ["every run between other atoms, longest first", "red\\s+dragon", ["dragon", "red"]],
  ["a character made optional by ? leaves its run", "colou?rful", ["colo", "rful"]],
  ["…and by *", "abcd*efghi", ["efghi", "abc"]],
  ["…and by {0,2}", "abcd{0,2}xyz", ["abc", "xyz"]],
  ["a lazy quantifier too", "abcd*?", ["abc"]],
  ["an escaped punctuation mark is itself", "a\\.b\\.c", ["a.b.c"]],
  ["a class escape breaks the run", "word\\dnumber", ["number", "word"]],
  ["\\x{…} is skipped whole", "\\x{41}bcd", ["bcd"]],
  ["\\Q…\\E is skipped whole", "\\Qa.b\\Ezzz", ["zzz"]],
  ["groups are skipped whole", "(?:foo|bar)bazz", ["bazz"]],
  ["classes are skipped whole, ] first included", "[]abc]defg", ["defg"]],
  ["POSIX classes inside a class", "[[:alpha:]]xyzw", ["xyzw"]],
  ["anchors and dots break runs", "^abc.defg$", ["defg", "abc"]],
  ["non-ASCII characters break runs", "été abcd", [" abcd"]],
  ["a top-level alternation has no one literal", "dragon|wyrm", []],
  ["inline flags change the rest: no literal", "(?i)dragon", []],
  ["runs shorter than three are not worth it", "ab\\s+cd", []],
  ["nothing literal at all", "\\d+\\s*", []],
])("%s", (_name, source, expected) => {
  expect(requiredLiterals(source)).toEqual(expected);
});
