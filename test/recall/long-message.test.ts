// A message longer than recall reads (MESSAGE_READ_MAX): its start and end are matched, its middle is
// not, and the cut never splits a surrogate pair.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chosenCards, type Engine, MESSAGE_READ_MAX, openEngine, readOf } from "../../src/recall/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault: string;
let engine: Engine;
beforeAll(async () => {
  vault = makeVault();
  engine = await openEngine(vault, { watch: false, segmenter: false });
});
afterAll(() => {
  engine.close();
  removeDir(vault);
});

const paste = (chars: number) => "0123456789abcdef ".repeat(Math.ceil(chars / 17)).slice(0, chars);
const fired = async (text: string) =>
  chosenCards(await engine.recall([{ role: "user", text }])).map((c) => c.card.key);

describe("a message longer than recall reads", () => {
  test.each([
    ["at its start", (p: string) => `Alice ${p}`, ["Alice"]],
    ["at its end", (p: string) => `${p} Alice`, ["Alice"]],
    ["only in its middle", (p: string) => `${p} Alice ${p}`, []],
  ])("a card named %s", async (_where, make, expected) => {
    expect(await fired(make(paste(MESSAGE_READ_MAX)))).toEqual(expected);
  });

  test("is read as its two halves, never split inside a surrogate pair", () => {
    const read = readOf("😭".repeat(MESSAGE_READ_MAX));
    expect(read.length).toBeLessThanOrEqual(MESSAGE_READ_MAX + 1);
    expect(read).toBe(`${"😭".repeat(MESSAGE_READ_MAX / 4)}\n${"😭".repeat(MESSAGE_READ_MAX / 4)}`);
    const odd = readOf(`x${"😭".repeat(MESSAGE_READ_MAX)}`);
    expect(odd.isWellFormed()).toBe(true);
  });
});
