/**
 * The line `try` prints for each card: the words it fired on, and for a card reached through another
 * card's text (the default one-hop reach), whose text those words were in. A person reading "on:
 * lighthouse" after a message that never says lighthouse was left to guess; explain said it already.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const vault = tempDir();
afterAll(() => fs.rmSync(vault, { recursive: true, force: true }));

function card(dir: string, name: string, keyword: string, text: string): void {
  fs.mkdirSync(path.join(vault, dir), { recursive: true });
  fs.writeFileSync(path.join(vault, dir, `${name}.md`), `---\nkeywords: [${keyword}]\n---\n${text}\n`);
}

card("people", "Mira", "mira", "Mira keeps the lighthouse on the north cape.");
card("places", "Lighthouse", "lighthouse", "A white tower; its lamp has not been lit since the storm.");

test.each([
  ["a card named in the message says the words it fired on, and nothing more", "Mira", "on: mira  "],
  [
    "a card reached through another card's text names that card",
    "Lighthouse",
    "on: lighthouse (in Mira's text)  ",
  ],
])("%s", (_name, title, came) => {
  const proc = Bun.spawnSync([process.execPath, MAIN, "try", "Is Mira home?", "--vault", vault], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(proc.exitCode).toBe(0);
  const line = proc.stdout
    .toString()
    .split("\n")
    .find((l) => l.includes(` ${title} [`));
  expect(line).toContain(came);
});

test("a card longer than the budget alone, in as the top card always is, is not called in budget by try or explain", () => {
  // A new user's 30,000-character World Bible note read "in budget" (of 800) while it took over the prompt.
  card("things", "Bible", "bible", "The world is old. ".repeat(100).trim());
  const run = (...args: string[]) =>
    Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", vault], { stdout: "pipe", stderr: "pipe" });
  const tried = run("try", "what does the bible say?").stdout.toString();
  expect(tried).toContain("chars  in, over the budget alone (the top card always goes in)");
  const explained = run("explain", "what does the bible say?").stdout.toString();
  expect(explained).toContain("over the budget alone, and in all the same: the top card always goes in");
  const why = JSON.parse(run("explain", "what does the bible say?", "--json").stdout.toString()).cards[0].why;
  expect(why).toEqual({ over_budget: true });
  // Beside it, a card that fits is in budget, as before.
  expect(run("try", "Is Mira home?").stdout.toString()).toContain("in budget");
});
