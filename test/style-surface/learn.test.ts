// style-surface/: what a surface hands to style memory and when. Only the person's own words (our blocks and
// the client's wrappers out), one conversation id for a Claude Code session seen by both the hook and
// the gateway, each turn once, nothing at all with `learn: false` in settings.yaml, and never a throw.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { markersFromSecret, wrapBlock } from "../../src/inject/index.ts";
import { openStyle } from "../../src/style/index.ts";
import { gatewayLearner, learnOnce, ownWords, styleConversation } from "../../src/style-surface/index.ts";
import { emptyVaults } from "../support/empty-vaults.ts";
import { removeDir } from "../support/vault.ts";

const markers = markersFromSecret("0123456789abcdef0123456789abcdef");
const vault = emptyVaults();

async function signals(root: string): Promise<Map<string, number>> {
  const book = await openStyle(root);
  try {
    return new Map((await book.list()).map((h) => [h.signal, h.count]));
  } finally {
    await book.close();
  }
}

describe("the person's own words", () => {
  test.each([
    ["no cap, ship it", "no cap, ship it"],
    ["<system-reminder>Today is Monday. lol</system-reminder>\nno cap", "no cap"],
    [`${wrapBlock("### Alice\nlol ngl", markers)}\n\nwhere is she?`, "where is she?"],
    ["<command-name>/clear</command-name>", ""],
    ["<environment_context>cwd: /x</environment_context>", ""],
  ])("%p → %p", (text, words) => {
    expect(ownWords(text, markers)).toBe(words);
  });

  test.each([
    ["hook:5f0c", "5f0c"],
    ["claude-code:5f0c", "5f0c"],
    ["codex:thread-1", "codex:thread-1"],
    ["a1b2c3d4e5f60718", "a1b2c3d4e5f60718"],
  ])("conversation %p is counted as %p", (id, as) => {
    expect(styleConversation(id)).toBe(as);
  });
});

describe("the gateway's learner", () => {
  test("a turn is learned once: the same turn and message again (a retry, a tool loop) is not", async () => {
    const root = vault();
    const warnings: string[] = [];
    const learner = gatewayLearner({ vaultRoot: root, warn: (l) => warnings.push(l), who: "test" });
    const seen = { conversation: "c1", turn: 1, hash: "h1", text: "no cap lol", markers };
    learner.observe(seen);
    learner.observe(seen);
    learner.observe({ ...seen });
    await learner.release();
    expect((await signals(root)).get("no cap")).toBe(1);
    learner.observe({ ...seen, turn: 2, hash: "h2", text: "no cap again" });
    learner.observe({ ...seen });
    await learner.release();
    expect((await signals(root)).get("no cap")).toBe(2);
    expect(warnings).toEqual([]);
  });

  test("learn: false in settings.yaml hands nothing over, and the book is never opened", async () => {
    const root = vault("learn: false\n");
    const learner = gatewayLearner({ vaultRoot: root, warn: () => {}, who: "test" });
    learner.observe({ conversation: "c1", turn: 1, hash: "h1", text: "no cap lol", markers });
    await learner.release();
    expect(fs.existsSync(path.join(root, ".lorecards", "style.db"))).toBe(false);
  });

  test("a vault that went away is not made again by learning; one warning says why", async () => {
    const root = vault();
    const warnings: string[] = [];
    const learner = gatewayLearner({ vaultRoot: root, warn: (l) => warnings.push(l), who: "test" });
    removeDir(root);
    learner.observe({ conversation: "c1", turn: 1, hash: "h1", text: "no cap", markers });
    learner.observe({ conversation: "c1", turn: 2, hash: "h2", text: "no cap", markers });
    await learner.release();
    expect(fs.existsSync(root)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("test: style not learned");
  });
});

describe("the hook's learning", () => {
  test("one prompt is one sighting; a failure is a warning, never a throw", async () => {
    const root = vault();
    const warnings: string[] = [];
    const options = { vaultRoot: root, warn: (l: string) => warnings.push(l), who: "test" };
    await learnOnce(options, "hook:s1", "巴适得板 no cap");
    expect((await signals(root)).get("no cap")).toBe(1);
    await learnOnce({ ...options, vaultRoot: path.join(root, "missing") }, "hook:s1", "no cap");
    expect(warnings).toHaveLength(1);
  });
});
