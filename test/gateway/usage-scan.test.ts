/**
 * The usage scanner against JSON.parse, on answers fast-check makes up: any JSON around a `usage`
 * object (strings full of quotes, escapes, "usage" and non-ASCII), cut into chunks anywhere, plain or
 * framed as an event stream with any line endings. What the scanner finds must be what parsing the
 * whole text finds, however the text arrives.
 */

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { UsageReader } from "../../src/gateway/_usage.ts";
import { adapterNamed } from "../../src/gateway/index.ts";

const usage = fc.record({
  prompt_tokens: fc.nat({ max: 1_000_000 }),
  completion_tokens: fc.nat({ max: 10_000 }),
  prompt_tokens_details: fc.record({ cached_tokens: fc.nat({ max: 1_000_000 }) }),
});

/** Text an answer may hold: quotes, backslashes, braces, the word usage, and characters outside ASCII. */
const tricky = fc
  .array(
    fc.constantFrom(
      '"',
      "\\",
      "{",
      "}",
      "[",
      "]",
      ":",
      ",",
      "usage",
      '"usage":',
      "é",
      "雨",
      "😀",
      "a",
      " ",
      "\n",
    ),
  )
  .map((parts) => parts.join(""));

const answer = fc.record({
  id: tricky,
  choices: fc.array(
    fc.record({ message: fc.record({ content: tricky, extra: fc.jsonValue({ maxDepth: 3 }) }) }),
    {
      maxLength: 3,
    },
  ),
  usage,
});

/** `text` cut at the given points (each taken modulo its length, so any list of numbers will do). */
function chunks(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % text.length)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const cut of at) {
    out.push(text.slice(from, cut));
    from = cut;
  }
  out.push(text.slice(from));
  return out;
}

function read(pieces: string[], eventStream: boolean) {
  const reader = new UsageReader(adapterNamed("openai").usage, eventStream);
  for (const piece of pieces) reader.write(piece);
  return reader.end();
}

const expected = (u: {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}) => {
  const cached = Math.min(u.prompt_tokens_details.cached_tokens, u.prompt_tokens);
  return { cached, uncached: u.prompt_tokens - cached, output: u.completion_tokens };
};

describe("the usage scanner, against JSON.parse", () => {
  test("a JSON answer gives its usage however it is cut into chunks", () => {
    fc.assert(
      fc.property(answer, fc.array(fc.nat()), (body, cuts) => {
        const found = read(chunks(JSON.stringify(body), cuts), false);
        const want = expected(body.usage);
        if (body.usage.prompt_tokens === 0 && want.cached === 0) return; // nothing billed: either answer is fine
        expect(found?.cacheRead).toBe(want.cached);
        expect(found?.uncached).toBe(want.uncached);
        expect(found?.output).toBe(want.output);
      }),
      { numRuns: 300 },
    );
  });

  test("an event stream gives the usage of its last chunk, whatever its line endings and chunking", () => {
    fc.assert(
      fc.property(
        fc.array(answer, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.array(fc.nat()),
        (events, eol, cuts) => {
          const stream = `${events.map((e) => `data: ${JSON.stringify(e)}${eol}${eol}`).join("")}data: [DONE]${eol}${eol}`;
          const found = read(chunks(stream, cuts), true);
          const last = events.at(-1)!.usage;
          const want = expected(last);
          if (last.prompt_tokens === 0 && want.cached === 0) return;
          expect(found?.cacheRead).toBe(want.cached);
          expect(found?.output).toBe(want.output);
        },
      ),
      { numRuns: 200 },
    );
  });
});
