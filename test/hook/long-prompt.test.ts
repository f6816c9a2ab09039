// A pasted hash, base64 or log in a prompt: the hook's work grows no faster than the prompt (a run of
// 32 KB of hex once took 7 s, past Claude Code's 10 s hook timeout from about 40 KB), measured as a
// ratio between two prompt sizes in one run; a 1 MB one still fires its card, and the hit log keeps
// the prompt's one excerpt with nothing of the run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { runHook } from "../../src/hook/index.ts";
import { growth, linearLimit, runOf } from "../support/growth.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeAll(() => {
  vault = makeVault();
});
afterAll(() => removeDir(vault));

let session = 0;
/** A prompt of a new session each time, so the card fires (and is logged) on every call. */
const prompt = (text: string) =>
  JSON.stringify({
    hook_event_name: "UserPromptSubmit",
    session_id: `long-${session++}`,
    cwd: "/tmp",
    prompt: text,
  });

const options = () => ({ vaultRoot: vault, learn: true, log: true });

describe("a long run in a prompt", () => {
  test.each([
    ["hex", "0123456789abcdef"],
    ["base64", "iVBORw0KGgo+/="],
    ["a credential's name", "password"],
    ["dots", "."],
    ["Han", "我跟你讲这个项目"],
  ])(
    "of %s costs the hook no more than linear time",
    async (_name, unit) => {
      const g = await growth(
        (text: string) => runHook(prompt(text), options()),
        (n) => `Alice ${runOf(unit, n)}`,
        16_000,
        8,
      );
      expect(g.ratio).toBeLessThan(linearLimit(8));
    },
    120_000,
  );

  test("of 1 MB of hex still fires its card; the hit log keeps the prompt's start, not the hex", async () => {
    const hex = runOf("0123456789abcdef", 1024 * 1024);
    const r = await runHook(prompt(`Alice ${hex}`), options());
    expect(r.injected).toEqual(["Alice"]);
    const log = fs
      .readFileSync(path.join(vault, ".lorecards", "hits.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(JSON.parse(log.at(-1)!).message).toBe("Alice");
  }, 120_000);
});
