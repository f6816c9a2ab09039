// `lorecards refresh` and `check --reindex`: bringing the index up to date by hand. An edit written into
// a card in place (which leaves its folder's mtime alone) is seen by the next cold `try` of a small vault
// anyway (vault/keeper.ts); `refresh --all` and `check --reindex` put it into the index for everyone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { selfCommand } from "../../src/cli/_self.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");

function lorecards(...args: string[]): { code: number; stdout: string; stderr: string } {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** Every card file and folder an hour old: nothing is inside the index's racy window. */
function age(root: string): void {
  const past = new Date(Date.now() - 3_600_000);
  for (const dir of readdirSync(root).filter((d) => !d.startsWith("."))) {
    for (const f of readdirSync(join(root, dir))) utimesSync(join(root, dir, f), past, past);
    utimesSync(join(root, dir), past, past);
  }
}

/**
 * Rewrite a card's bytes without moving its folder's mtime, as an editor that saves in place does; the
 * file's own mtime moves, but not into the index's racy window (where it would be compared anyway).
 */
function editInPlace(vault: TempVault, rel: string, text: string): void {
  const folder = join(vault.root, rel.split("/")[0]!);
  const before = statSync(folder);
  const file = vault.write(rel, text);
  const moved = new Date(before.mtimeMs + 1000);
  utimesSync(file, moved, moved);
  utimesSync(folder, before.atime, before.mtime);
}

let vault: TempVault;
beforeAll(() => {
  vault = tempVault({ "people/Alice.md": cardText("keywords: [Alice]", "## who\nAlice runs payments.\n") });
  age(vault.root);
});
afterAll(() => vault.remove());

const fired = (sentence: string) =>
  JSON.parse(lorecards("try", sentence, "--json", "--vault", vault.root).stdout).fired.length;

describe("an edit made in place", () => {
  test("is read by refresh --all, and not by a plain refresh, which compares only folders that moved", () => {
    expect(fired("ask Alice")).toBe(1);
    editInPlace(vault, "people/Alice.md", cardText("keywords: [Alice, Zanzibar]", "## who\nAlice.\n"));
    const plain = lorecards("refresh", "--json", "--vault", vault.root);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ files: 1, parsed: 0 });
    const all = lorecards("refresh", "--all", "--json", "--vault", vault.root);
    expect(JSON.parse(all.stdout)).toMatchObject({ files: 1, parsed: 1 });
    expect(fired("off to Zanzibar")).toBe(1);
  });

  test("is read by check --reindex", () => {
    age(vault.root);
    lorecards("refresh", "--all", "--vault", vault.root);
    editInPlace(vault, "people/Alice.md", cardText("keywords: [Alice, Timbuktu]", "## who\nAlice.\n"));
    const check = lorecards("check", "--reindex", "--vault", vault.root);
    expect(check.code).toBe(0);
    const again = lorecards("refresh", "--all", "--json", "--vault", vault.root);
    expect(JSON.parse(again.stdout)).toMatchObject({ parsed: 0 });
    expect(fired("off to Timbuktu")).toBe(1);
  });

  test("is seen by the next try of a small vault even without either", () => {
    editInPlace(vault, "people/Alice.md", cardText("keywords: [Alice, Kathmandu]", "## who\nAlice.\n"));
    expect(fired("off to Kathmandu")).toBe(1);
  });
});

describe("how a server runs its own refresh", () => {
  test.each([
    ["a compiled binary (its entry point is embedded)", "/$bunfs/root/lorecards", false],
    ["a compiled Windows binary", "B:\\~BUN\\root\\lorecards.exe", false],
    ["bun running the script", MAIN, true],
    ["a script that is not on disk", "/nowhere/main.ts", false],
  ])("%s", (_name, main, withScript) => {
    expect(selfCommand(main)).toEqual(withScript ? [process.execPath, main] : [process.execPath]);
  });
});
