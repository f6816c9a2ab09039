import { describe, expect, test } from "bun:test";
import { cutsOf } from "../../src/match/_cuts.ts";
import { jiebaSegmenter, type Segmenter } from "../../src/match/segment.ts";

/** The real jieba segmenter, counting the texts it was asked to cut. */
function counting(): { load: () => Promise<Segmenter>; cut: string[] } {
  const cut: string[] = [];
  return {
    cut,
    load: async () => {
      const jieba = await jiebaSegmenter();
      return {
        ...jieba,
        cut: (text) => {
          cut.push(text);
          return jieba.cut(text);
        },
      };
    },
  };
}

/** Every boundary of `text` by the segmenter itself: 0 and the end of each word. */
async function expected(text: string): Promise<number[]> {
  let at = 0;
  return [0, ...(await jiebaSegmenter()).cut(text).map((w) => (at += w.length))];
}

describe("word boundaries of unspaced text are remembered", () => {
  test.each([["我的猫很可爱"], ["小明在北京大学读书"], ["東京タワーに行きました"]])(
    "the cuts of %s are the segmenter's own, at every position",
    async (text) => {
      const cuts = await cutsOf(text, counting().load);
      const ends = await expected(text);
      for (let i = 0; i <= text.length; i++) expect(cuts.has(i)).toBe(ends.includes(i));
    },
  );

  test("a text met again is not cut again; another text is", async () => {
    const s = counting();
    await cutsOf("我的猫很可爱", s.load);
    await cutsOf("我的猫很可爱", s.load);
    await cutsOf("小明在北京大学读书", s.load);
    expect(s.cut).toEqual(["我的猫很可爱", "小明在北京大学读书"]);
  });

  test("each segmenter has its own memory", async () => {
    const a = counting();
    const b = counting();
    await cutsOf("我的猫很可爱", a.load);
    await cutsOf("我的猫很可爱", b.load);
    expect([a.cut.length, b.cut.length]).toEqual([1, 1]);
  });

  test("what is kept is bounded: the least recently used text is let go first", async () => {
    const s = counting();
    // 40 texts of 30,000 characters exceed the budget of 1,000,000 characters kept.
    const texts = Array.from(
      { length: 40 },
      (_, i) => `${"猫".repeat(29_990)}${String(i).padStart(10, "0")}`,
    );
    for (const t of texts) await cutsOf(t, s.load);
    s.cut.length = 0;
    await cutsOf(texts[39]!, s.load); // the newest is kept
    await cutsOf(texts[0]!, s.load); // the oldest was let go
    expect(s.cut.map((t) => t.slice(-2))).toEqual(["00"]);
  });

  test("a text longer than 64,000 characters is cut every time, and pushes nothing out", async () => {
    const s = counting();
    await cutsOf("我的猫很可爱", s.load);
    const long = "猫".repeat(64_001);
    await cutsOf(long, s.load);
    await cutsOf(long, s.load);
    await cutsOf("我的猫很可爱", s.load);
    expect(s.cut.map((t) => t.length)).toEqual([6, 64_001, 64_001]);
  });
});
