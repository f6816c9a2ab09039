import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { appendHits, type HitEntry, hitsPath, readRecentHits } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function vault(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

const entry = (i: number, message = `message ${i}`): HitEntry => ({
  time: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
  source: "gateway",
  keys: [`card${i}`],
  words: [`word${i}`],
  message,
});

describe("hit log", () => {
  test("entries come back newest first, as many as asked for", () => {
    const root = vault();
    appendHits(root, [entry(1), entry(2)]);
    appendHits(root, [entry(3)]);
    expect(readRecentHits(root, 2).map((e) => e.keys[0])).toEqual(["card3", "card2"]);
    expect(readRecentHits(root, 10)).toHaveLength(3);
  });

  test("a missing log reads as empty", () => {
    expect(readRecentHits(vault(), 5)).toEqual([]);
  });

  test("only the first 200 characters of the message are kept, without splitting a character", () => {
    const root = vault();
    appendHits(root, [entry(1, `${"字".repeat(199)}😀😀😀`)]);
    const [got] = readRecentHits(root, 1);
    expect(Array.from(got!.message)).toHaveLength(200);
    expect(got!.message.endsWith("😀")).toBe(true);
  });

  test("a torn or hand-edited line is skipped", () => {
    const root = vault();
    appendHits(root, [entry(1)]);
    fs.appendFileSync(hitsPath(root), "{not json\n");
    appendHits(root, [entry(2)]);
    fs.appendFileSync(hitsPath(root), '{"time":"2025');
    expect(readRecentHits(root, 5).map((e) => e.keys[0])).toEqual(["card2", "card1"]);
  });

  test("the tail is found in a log larger than one read chunk", () => {
    const root = vault();
    appendHits(
      root,
      Array.from({ length: 2000 }, (_, i) => entry(i % 60, "x".repeat(150))),
    );
    appendHits(root, [entry(7, "last")]);
    const got = readRecentHits(root, 1500);
    expect(got).toHaveLength(1500);
    expect(got[0]!.message).toBe("last");
  });

  test("one line per entry", () => {
    const root = vault();
    appendHits(root, [entry(1), entry(2)]);
    expect(fs.readFileSync(hitsPath(root), "utf8").trim().split("\n")).toHaveLength(2);
  });
});
