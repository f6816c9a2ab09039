// style/_inbox.ts under kill -9 and under contention: processes that fold the inbox are killed at random
// moments (mid-transaction, mid-rename of a large inbox) while hooks keep appending, and processes fold
// and append all at once; in the end every prompt is learned exactly once.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { noteStyle, openStyle } from "../../src/style/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const STYLE = path.join(import.meta.dir, "..", "..", "src", "style", "index.ts");
const TEXT = `no cap lol ${"ngl ".repeat(20)}`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A script that, in a process of its own, either folds the inbox (a reader) or notes prompts (a hook). */
function script(root: string): string {
  const file = path.join(root, "..", `${path.basename(root)}-child.ts`);
  fs.writeFileSync(
    file,
    `import { noteStyle, openStyle } from ${JSON.stringify(STYLE)};
const [root, what, n] = process.argv.slice(2);
if (what === "fold") {
  const book = await openStyle(root);
  await book.list();
  await book.close();
} else for (let i = 0; i < Number(n); i++) await noteStyle(root, {}, "c" + (i % 3), ${JSON.stringify(TEXT)});
`,
  );
  dirs.push(file);
  return file;
}

function child(file: string, root: string, ...args: string[]) {
  return Bun.spawn([process.execPath, file, root, ...args], { stdout: "ignore", stderr: "pipe" });
}

/** `n` more prompts in the inbox as hooks leave them (one line each), without folding. */
let line = "";
async function append(root: string, n: number): Promise<void> {
  if (line === "") {
    const scratch = makeVault([]);
    dirs.push(scratch);
    await noteStyle(scratch, {}, "c1", TEXT); // learned at once: the store said it holds no hint
    await noteStyle(scratch, {}, "c1", TEXT);
    line = fs.readFileSync(path.join(scratch, ".lorecards", "style-inbox.jsonl"), "utf8");
  }
  fs.mkdirSync(path.join(root, ".lorecards"), { recursive: true });
  fs.appendFileSync(path.join(root, ".lorecards", "style-inbox.jsonl"), line.repeat(n));
}

async function count(root: string): Promise<number | undefined> {
  const book = await openStyle(root);
  try {
    return (await book.list()).find((h) => h.signal === "no cap")?.count;
  } finally {
    await book.close();
  }
}

describe("the inbox's fold", () => {
  test("killed at any moment, it neither loses nor counts twice a prompt", async () => {
    const root = makeVault([]);
    dirs.push(root);
    const file = script(root);
    let total = 0;
    let killed = 0;
    // Twelve rounds, and more until a kill has landed (at most 40): a fast machine once finished every
    // fold of twelve before its kill, and the test then proved nothing about a killed one.
    for (let round = 0; round < 12 || (killed === 0 && round < 40); round++) {
      await append(root, 700);
      total += 700;
      const p = child(file, root, "fold");
      // From the start of the process on: a kill while it starts or reads counts as much as one mid-fold.
      await Bun.sleep(Math.floor(Math.random() * 250));
      p.kill(9);
      if ((await p.exited) !== 0) killed++;
    }
    expect(killed).toBeGreaterThan(0);
    expect(await count(root)).toBe(total);
  });

  test("folded by several processes at once while hooks append, each prompt is learned once", async () => {
    const root = makeVault([]);
    dirs.push(root);
    const file = script(root);
    await append(root, 1500);
    const procs = [
      child(file, root, "fold"),
      child(file, root, "note", "150"),
      child(file, root, "fold"),
      child(file, root, "note", "150"),
      child(file, root, "fold"),
    ];
    const codes = await Promise.all(procs.map((p) => p.exited));
    const errors = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect(errors.join("")).toBe("");
    expect(codes).toEqual([0, 0, 0, 0, 0]);
    expect(await count(root)).toBe(1800);
  });
});
