/**
 * End to end: the compiled gateway segments Chinese on a thread of its own (src/match/segment-thread.ts),
 * whose module is an entry point of the binary (build.ts THREADS). A card's prose names another card
 * only by a whole word, which takes jieba inside Chinese text; the official openai client asks, and
 * the gateway's stderr never says that segmentation went back to the serving thread.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ensureBinary } from "../support/binary.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";

let upstream: FakeUpstream;
let vault: TempVault;
let gateway: Bun.Subprocess<"ignore", "ignore", "pipe">;
let stderr = "";
let reader: ReadableStreamDefaultReader<Uint8Array>;
let base = "";

/** Reads the gateway's stderr until `enough` holds or it ends. */
async function readStderr(enough: () => boolean): Promise<void> {
  while (!enough()) {
    const { done, value } = await reader.read();
    if (done) return;
    stderr += new TextDecoder().decode(value);
  }
}

beforeAll(async () => {
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  upstream = startFakeUpstream({ reply: () => "好的。" });
  vault = tempVault({
    "places/北京.md": cardText("keywords: [北京]", "首都。\n"),
    "people/小明.md": cardText("keywords: [小明]", "小明在北京大学读书。\n"),
    "people/小红.md": cardText("keywords: [小红]", "小红住在北京。\n"),
  });
  gateway = Bun.spawn([bin, "gateway", "--vault", vault.root, "--upstream", upstream.url, "--port", "0"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  reader = gateway.stderr.getReader();
  const listening = () => /OpenAI clients' base URL[^:]*: (http:\/\/\S+)\/v1/.exec(stderr);
  await readStderr(() => listening() !== null);
  base = listening()?.[1] ?? "";
  if (!base) throw new Error(`gateway exited before listening: ${stderr}`);
});

afterAll(async () => {
  gateway?.kill();
  await gateway?.exited;
  await upstream?.close();
  vault?.remove();
});

describe("the compiled gateway segments Chinese on a thread of its own", () => {
  test.each([
    ["小红呢？", ["小红", "北京"]],
    ["小明呢？", ["小明"]],
  ])(
    "%s brings in %p: 北京 is a word in 小红's prose, and inside 北京大学 in 小明's",
    async (prompt, cards) => {
      const client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${base}/v1` });
      const { data, response } = await client.chat.completions
        .create({ model: "m", messages: [{ role: "user", content: prompt }] })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe("好的。");
      expect(response.headers.get("x-lorecards-injected")?.split(",").map(decodeURIComponent)).toEqual(cards);
    },
  );

  test("its stderr never says segmentation went back to the serving thread", async () => {
    gateway.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    await readStderr(() => false);
    expect(stderr).not.toContain("word segmentation");
    expect(stderr).not.toContain("error");
  });
});
