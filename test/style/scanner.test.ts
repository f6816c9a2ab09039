// One automaton over the dictionary, with the edges it cannot know checked at each hit.
import { describe, expect, test } from "bun:test";
import { builtInReader } from "../../src/style/built-in.ts";
import { styleFold } from "../../src/style/fold.ts";
import { TermScanner } from "../../src/style/scanner.ts";

const reader = builtInReader();
const found = (text: string) => reader.terms.scan(styleFold(text)).map((h) => h.value.term);

describe("the dictionary's terms in a message", () => {
  test.each([
    ["a Latin term as a whole word", "lol that was close", ["lol"]],
    ["…not inside a longer word", "a lollipop for you", []],
    ["…nor at a word's end", "the carol sang", []],
    ["Han text beside it is an edge", "好的lol", ["lol"]],
    ["any case, and full-width letters", "LOL and ＬＭＡＯ", ["lol", "lmao"]],
    ["the typographic apostrophe reads as a plain one", "it’s giving summer", ["it's giving"]],
    ["a longer term wins over one inside it", "no cap, that's it", ["no cap"]],
    ["a term may run on with its own characters", "hahahahaha stop", ["haha"]],
    ["…but not into a word", "hahahat", []],
    ["laughter in Chinese runs on too", "哈哈哈哈哈", ["哈哈"]],
    ["2333 runs on with 3s", "23333333", ["2333"]],
    ["a number that merely starts like it does not", "123334", []],
    ["a Chinese term anywhere in Chinese text", "今天巴适得板", ["巴适得板"]],
    ["a blocker keeps a longer word apart", "我们去阿拉伯玩", []],
    ["…and the term still counts on its own", "阿拉上海人", ["阿拉"]],
    ["an emoticon between spaces", "sure :) see you", [":)"]],
    ["…followed by sentence punctuation", "sure :).", [":)"]],
    ["…but not inside a link", "see http://example.com", []],
    ["…nor glued to a word", "word:)", []],
    ["a kaomoji anywhere", "累了_(:з」∠)_", ["_(:з」∠)_"]],
    ["trailing dots", "well...", ["..."]],
    ["…not a spread operator", "call(...args)", []],
    ["a tilde that softens", "好的~", ["~"]],
    ["…not a home folder", "cd ~/bin", []],
    ["a bracket sticker", "就这样[狗头]", ["[狗头]"]],
    ["several signals, in order", "ngl this slaps fr", ["ngl", "this slaps", "fr"]],
  ])("%s", (_name, text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  test("blocked spellings never count", () => {
    expect(found("伊拉克 阿拉斯加 蛤蟆")).toEqual([]);
  });
});

describe("the scanner", () => {
  test("a hit's positions are those of the folded text, run-on included", () => {
    const s = new TermScanner([{ term: "haha", value: "laugh", more: "ha" }]);
    expect(s.scan("ok hahaha.")).toEqual([{ value: "laugh", start: 3, end: 9 }]);
  });

  test("the first term of a folded spelling is kept", () => {
    const s = new TermScanner([
      { term: "Ship It", value: 1 },
      { term: "ship it", value: 2 },
    ]);
    expect(s.size).toBe(1);
    expect(s.scan("ship it").map((h) => h.value)).toEqual([1]);
  });

  test("overlapping hits are settled leftmost, then longest", () => {
    const s = new TermScanner([
      { term: "甲乙丙", value: "甲乙丙" },
      { term: "乙丙丁", value: "乙丙丁" },
      { term: "丙丁", value: "丙丁" },
    ]);
    expect(s.scan("甲乙丙丁").map((h) => h.value)).toEqual(["甲乙丙"]);
    expect(s.scan("乙丙丁甲乙丙").map((h) => h.value)).toEqual(["乙丙丁", "甲乙丙"]);
  });
});
