// Word segmentation on a thread of its own (src/match/segment-thread.ts), as a process that serves
// requests segments: the words are jieba's own, the thread that asks keeps running while jieba
// loads, a thread that cannot start hands the cuts back to this one (said once), an idle thread
// ends and the next text starts another, and the thread keeps no process alive.
import { afterEach, describe, expect, test } from "bun:test";
import path from "node:path";
import { jiebaSegmenter } from "../../src/match/segment.ts";
import { SegmentThread } from "../../src/match/segment-thread.ts";

const TEXTS = [
  "小明在北京大学读书",
  "小红住在北京。",
  "我的猫很可爱",
  "東京タワーに行きました",
  "ok, 小林 said hi",
];

let threads: SegmentThread[] = [];
afterEach(() => {
  for (const t of threads) t.stop();
  threads = [];
});

function thread(options: Partial<ConstructorParameters<typeof SegmentThread>[0]> = {}): {
  thread: SegmentThread;
  warned: string[];
} {
  const warned: string[] = [];
  const t = new SegmentThread({ warn: (line) => warned.push(line), ...options });
  threads.push(t);
  return { thread: t, warned };
}

describe("word segmentation on a thread of its own", () => {
  test("the words are jieba's own, the same as in this thread", async () => {
    const { thread: t, warned } = thread();
    const here = await jiebaSegmenter();
    const cut = await Promise.all(TEXTS.map((text) => t.cut(text)));
    expect(cut).toEqual(TEXTS.map((text) => here.cut(text)));
    expect(warned).toEqual([]);
  });

  test("while jieba loads there, the thread that asked goes on with other work", async () => {
    const { thread: t } = thread();
    let ticks = 0;
    let waiting = true;
    const tick = () => {
      ticks++;
      if (waiting) setImmediate(tick);
    };
    setImmediate(tick);
    const words = await t.cut("小红住在北京。");
    waiting = false;
    expect(words.join("")).toBe("小红住在北京。");
    // jieba in this thread would have held it for the whole load: not one turn of the loop between.
    expect(ticks).toBeGreaterThan(10);
  });

  test("a thread that cannot start is said once, and every cut is made here instead", async () => {
    const missing = path.join(import.meta.dir, "no-such-thread.ts");
    const { thread: t, warned } = thread({ module: missing });
    const here = await jiebaSegmenter();
    expect(await Promise.all(TEXTS.map((text) => t.cut(text)))).toEqual(TEXTS.map((text) => here.cut(text)));
    expect(await t.cut("我的猫很可爱")).toEqual(here.cut("我的猫很可爱"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("word segmentation went back to the serving thread");
    expect(t.running).toBe(false);
  });

  test("an idle thread ends, giving its memory back, and the next text starts another", async () => {
    const { thread: t, warned } = thread({ idleMs: 20 });
    expect(t.running).toBe(false);
    await t.cut("小明在北京大学读书");
    let ended = false;
    for (let i = 0; i < 200 && !ended; i++) {
      await Bun.sleep(20);
      ended = !t.running;
    }
    expect(ended).toBe(true);
    expect(await t.cut("小红住在北京。")).toEqual((await jiebaSegmenter()).cut("小红住在北京。"));
    expect(warned).toEqual([]);
  });

  test("a process that segmented on its thread exits on its own: the thread keeps nothing alive", async () => {
    const module = path.resolve(import.meta.dir, "../../src/match/segment-thread.ts");
    const script = `
      import { threadSegmenter } from ${JSON.stringify(module)};
      const words = await (await threadSegmenter()).cut("小红住在北京。");
      console.log(words.join("|"));`;
    // A process that hangs fails the test by its timeout.
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe(
      `${(await jiebaSegmenter()).cut("小红住在北京。").join("|")}\n`,
    );
    expect(await new Response(child.stderr).text()).toBe("");
  }, 30_000);
});
