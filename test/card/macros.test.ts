// The card spec's macros (§10) in the text a card sends, in the order of §11.2, case-insensitive
// (§11.3); unknown ones stay as written and are listed.
import { describe, expect, test } from "bun:test";
import { expandMacros, readMacros } from "../../src/card/macros.ts";

const both = { char: "Seraphina", user: "Ann" };
/** A draw that always says `r`: the first value at 0, the last just under 1. */
const fixed = (r: number) => () => r;

describe("names", () => {
  test.each([
    ["{{char}} greets {{user}}.", both, "Seraphina greets Ann."],
    ["{{CHAR}} and {{User}}", both, "Seraphina and Ann"],
    ["<char>, <BOT> and <user>", both, "Seraphina, Seraphina and Ann"],
    ["{{char}} and <user> stay without names", {}, "{{char}} and <user> stay without names"],
    ["{{char}} meets {{user}}", { user: "Ann" }, "{{char}} meets Ann"],
    [
      "{{ char }} and {{charIfNotGroup}} are not ours",
      both,
      "{{ char }} and {{charIfNotGroup}} are not ours",
    ],
    [
      "a name that looks like a macro is not expanded again",
      { char: "{{user}}", user: "Ann" },
      "a name that looks like a macro is not expanded again",
    ],
    ["{{char}}", { char: "{{user}}", user: "Ann" }, "{{user}}"],
    ["$& and $1 in names stay literal: {{char}}", { char: "$&$1" }, "$& and $1 in names stay literal: $&$1"],
  ])("%p", (text, names, expected) => {
    expect(expandMacros(text, { names })).toBe(expected);
  });
});

describe("the other macros of §10", () => {
  test.each([
    ["a{{// hidden\nacross lines }}b", 0, "ab"],
    ["a{{// a comment {{with}} braces }}b", 0, "ab"],
    ["Rain {{comment: secret}} falls.", 0, "Rain  falls."],
    ["Rain {{COMMENT: secret}} falls.", 0, "Rain  falls."],
    ["a{{hidden_key:Orrin}}b", 0, "ab"],
    ["{{reverse:Hello}}", 0, "olleH"],
    ["{{random:a,b,c}}", 0, "a"],
    ["{{random:a,b,c}}", 0.99, "c"],
    ["{{Random:a::b,c}}", 0, "a,b"],
    ["{{random:a::b,c}}", 0.99, "c"],
    ["{{pick:x,y}}", 0.6, "y"],
    ["{{roll:6}}", 0, "1"],
    ["{{roll:d6}}", 0.99, "6"],
    ["{{roll:D20}}", 0.5, "11"],
    ["{{random:{{char}},{{user}}}}", 0.99, "Ann"],
    ["{{reverse:{{char}}}}", 0, "}}rahc{{"],
    ["{{roll:zero}} stays", 0, "{{roll:zero}} stays"],
    ["{{time}} and {{getvar::x}} stay", 0, "{{time}} and {{getvar::x}} stay"],
    ["an unclosed {{random:a,b stays", 0, "an unclosed {{random:a,b stays"],
  ])("%p with a draw of %p", (text, r, expected) => {
    expect(expandMacros(text, { names: both, draw: fixed(r) })).toBe(expected);
  });

  test("what the macros hold besides the text: hidden keys, comments, unknown macros, unnamed names", () => {
    const read = readMacros("{{user}} {{hidden_key:Orrin}}{{comment: check the date }}{{time}} {{usr}}", {});
    expect(read).toEqual({
      text: "{{user}} {{time}} {{usr}}",
      hidden: ["Orrin"],
      comments: ["check the date"],
      unknown: ["{{time}}", "{{usr}}"],
      unnamed: ["user"],
    });
  });

  test("unnamed names are listed char first, each once", () => {
    expect(readMacros("<user> <BOT> {{char}}").unnamed).toEqual(["char", "user"]);
  });

  test("each {{random}} draws on its own; identical {{pick}} expressions draw once", () => {
    const asked: string[] = [];
    expandMacros("{{random:a,b}}{{random:a,b}}{{pick:c,d}}{{pick:c,d}}", {
      draw: (what) => {
        asked.push(what);
        return 0;
      },
    });
    expect(asked).toEqual(["random#0:a,b", "random#1:a,b", "pick:c,d", "pick:c,d"]);
  });
});
