// Given turns replayed as a conversation (`try --turns`, `/api/try`): one recall per user message,
// carrying the timed-effects memory, the clock counted as the gateway counts it.
import { afterEach, describe, expect, test } from "bun:test";
import { firedCards, openEngine, type RecallOptions, simulate, type Turn } from "../../src/recall/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string): Turn => ({ role: "user", text });
const assistant = (text: string): Turn => ({ role: "assistant", text });

describe("simulate", () => {
  test("runs once per user message, oldest first, with the gateway's clock and seeds", async () => {
    const calls: { texts: string[]; options: RecallOptions }[] = [];
    const fake = async (turns: readonly Turn[], options: RecallOptions) => {
      calls.push({ texts: turns.map((t) => t.text), options });
      return { timed: { [`k/${turns.length}`]: { last: turns.length } } } as never;
    };
    await simulate(fake, [user("a"), assistant("b"), assistant("c"), user("d"), user("e")], { seed: "conv" });
    expect(
      calls.map((c) => [c.texts.join(""), c.options.seed, c.options.history, c.options.candidates]),
    ).toEqual([
      ["a", "conv:1", { messages: 1, assistantMessages: 0, memory: {} }, false],
      ["abcd", "conv:2", { messages: 4, assistantMessages: 2, memory: { "k/1": { last: 1 } } }, false],
      ["abcde", "conv:3", { messages: 5, assistantMessages: 2, memory: { "k/4": { last: 4 } } }, undefined],
    ]);
  });

  test("without a seed none is made up (recall derives one from the turns)", async () => {
    const seeds: (string | undefined)[] = [];
    await simulate(
      async (_t, o) => {
        seeds.push(o.seed);
        return { timed: {} } as never;
      },
      [user("a"), user("b")],
    );
    expect(seeds).toEqual([undefined, undefined]);
  });

  test("a sticky card named two messages ago is still in; without the replay it would not be", async () => {
    vault = tempVault({
      "people/Lyra.md": cardText("keywords: [Lyra]\nsticky: 3", "Lyra keeps bees.\n"),
    });
    const engine = await openEngine(vault.root, { segmenter: false });
    const recallAt = (t: readonly Turn[], o: RecallOptions) => engine.recall(t, o);
    const turns = [user("where is Lyra?"), assistant("by the hives"), user("and then?")];
    const replayed = await simulate(recallAt, turns, { scanDepth: 0 });
    expect(firedCards(replayed).map((f) => [f.card.key, f.via, f.verdict])).toEqual([
      ["Lyra", "sticky", "chosen"],
    ]);
    const once = await engine.recall(turns, { scanDepth: 0 });
    expect(firedCards(once)).toEqual([]);
  });
});
