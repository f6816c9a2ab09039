// The VaultSource: recall reads the vault without writing, unless the process says it should persist.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { openEngine } from "../../src/recall/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });

/** Every file and folder under `root`, our state folder included, with its bytes (folders: "dir"). */
function everything(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        out[relative(root, p)] = "dir";
        walk(p);
      } else out[relative(root, p)] = readFileSync(p, "latin1");
    }
  };
  walk(root);
  return out;
}

const files = {
  "people/Alice.md": cardText("keywords: [Alice]\nrefs: [Bob]", "## who\nAlice runs payments.\n"),
  "people/Bob.md": cardText("keywords: [Bob]", "## who\nBob keeps bees.\n"),
};

describe("recall's read path", () => {
  test("a recall on an engine opened without persistence leaves the vault's files byte-identical", async () => {
    vault = tempVault(files);
    const before = everything(vault.root);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([user("Alice")]);
    expect(r.injected).toEqual(["Alice"]);
    vault.write("people/Carol.md", cardText("keywords: [Carol]", "new\n"));
    engine.invalidate();
    expect((await engine.recall([user("Carol")])).injected).toEqual(["Carol"]);
    expect(everything(vault.root)).toEqual({ ...before, "people/Carol.md": expect.any(String) });
    expect(existsSync(join(vault.root, ".lorecards", "index.json"))).toBe(false);
    expect(existsSync(join(vault.root, ".lorecards", "matcher.bin"))).toBe(false);
  });

  test("an engine opened with persist saves the index and the matcher for the next cold start", async () => {
    vault = tempVault(files);
    await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([user("Alice")]);
    const state = join(vault.root, ".lorecards");
    const saved = {
      index: statSync(join(state, "index.json")),
      matcher: statSync(join(state, "matcher.bin")),
    };
    // The next cold process finds both current and writes neither again.
    const again = await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([
      user("Alice"),
    ]);
    expect(again.injected).toEqual(["Alice"]);
    expect(statSync(join(state, "index.json")).mtimeMs).toBe(saved.index.mtimeMs);
    expect(statSync(join(state, "matcher.bin")).mtimeMs).toBe(saved.matcher.mtimeMs);
  });

  test("an engine without persistence still reads the snapshots another process saved", async () => {
    vault = tempVault(files);
    const first = await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([
      user("Alice"),
    ]);
    const before = everything(vault.root);
    const second = await (await openEngine(vault.root, { segmenter: false })).recall([user("Alice")]);
    expect(second.context).toBe(first.context);
    expect(everything(vault.root)).toEqual(before);
  });
});
