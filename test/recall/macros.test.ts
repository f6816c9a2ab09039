// Macros in what recall renders: names from the recall's options, comments never sent, and random
// macros drawn once per conversation and card text, so the block's bytes stay the same on every turn.
import { afterEach, describe, expect, test } from "bun:test";
import { contextText, openEngine } from "../../src/recall/index.ts";
import { expandMacros } from "../../src/recall/macros.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const both = { char: "Seraphina", user: "Ann" };

describe("in a recall", () => {
  const files = {
    "people/Lyra.md": cardText(
      "keywords: [Lyra]\nrefs: [Harbor]",
      "{{char}} trusts Lyra; {{user}} does not.{{// author note}}\n",
    ),
    "places/Harbor.md": cardText("keywords: [harbor]", "Where <char> first met <user>.\n"),
    "Rain.md": cardText("keywords: [rain]", "Rain {{comment: secret}} {{random:a,b,c,d,e,f,g,h}}\n"),
  };

  test("names given to the recall fill the body and the see-also lines; the heading stays as written", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([{ role: "user", text: "Lyra?" }], { names: both });
    expect(contextText(r)).toBe(
      "A memory surfaces:\n\n### Lyra [people]\nSeraphina trusts Lyra; Ann does not.\n" +
        "see also: Harbor — Where Seraphina first met Ann.\n",
    );
  });

  test("a comment macro never reaches the model and a random one is replaced", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([{ role: "user", text: "rain?" }], { conversationId: "c1" });
    expect(contextText(r)).not.toContain("secret");
    expect(contextText(r)).not.toContain("{{");
    expect(contextText(r)).toMatch(/Rain {2}[a-h]\n/);
  });

  test("a random macro draws once per conversation: the same bytes on every turn and in a new process", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const first = await engine.recall([{ role: "user", text: "rain?" }], { conversationId: "c1" });
    const later = await engine.recall(
      [
        { role: "user", text: "rain?" },
        { role: "assistant", text: "yes" },
        { role: "user", text: "more rain" },
      ],
      { conversationId: "c1", seed: "c1:2" },
    );
    const fresh = await (await openEngine(vault.root, { segmenter: false })).recall(
      [{ role: "user", text: "rain again" }],
      { conversationId: "c1" },
    );
    expect(contextText(first)).toContain("### Rain [entry]");
    expect(contextText(later)).toBe(contextText(first));
    expect(contextText(fresh)).toBe(contextText(first));
  });

  test("other conversations draw again", () => {
    const text = "{{random:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p}}";
    const drawn = new Set(Array.from({ length: 12 }, (_, i) => expandMacros(text, {}, `conversation ${i}`)));
    expect(drawn.size).toBeGreaterThan(1);
  });

  test("without a conversation id the first message stands for the conversation", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const one = await engine.recall([{ role: "user", text: "rain?" }]);
    const two = await engine.recall([
      { role: "user", text: "rain?" },
      { role: "assistant", text: "yes" },
      { role: "user", text: "and rain" },
    ]);
    expect(contextText(one)).toContain("### Rain [entry]");
    expect(contextText(two)).toBe(contextText(one));
  });
});
