// What a killed import left behind (vault/_batch.ts) meets later writers and readers (vault/_settle.ts):
// writers settle it before they write, so a recovery never runs over a newer write; readers settle it
// before they read, so nobody sees half a book, and never wait for an import that is still running.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { statExact } from "../../src/vault/_fs.ts";
import {
  acquireLock,
  cardPath,
  hasLeftovers,
  loadIndex,
  lockPath,
  readCard,
  recoverImports,
  STATE_DIR,
  updateCard,
  type Vault,
} from "../../src/vault/index.ts";
import { tempVault } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const IMPORTED = "---\ntitle: Alice\n---\nIMPORTED\n";

/** The folder an import killed right after writing its plan leaves: staged files, nothing moved yet. */
function killedImport(v: Vault, targets: { rel: string; replaces: boolean }[]): string {
  const stage = path.join(v.root, STATE_DIR, "import-999999-dead");
  fs.mkdirSync(path.join(stage, "old"), { recursive: true });
  const moves = targets.map((t, i) => {
    fs.writeFileSync(path.join(stage, `${i}.md`), IMPORTED);
    const was = t.replaces ? (statExact(path.join(v.root, t.rel)) ?? undefined) : undefined;
    return { staged: `${i}.md`, target: t.rel, replaces: t.replaces, was };
  });
  fs.writeFileSync(path.join(stage, "plan.json"), JSON.stringify({ moves }));
  return stage;
}

describe("a killed import", () => {
  test("is settled by the next write before it writes, so the write is the one that stays", async () => {
    vault = tempVault();
    killedImport(vault, [{ rel: "people/Alice.md", replaces: true }]);
    await updateCard(vault, "people", "Alice", { body: "MINE\n" });
    expect(hasLeftovers(vault)).toBe(false);
    const text = fs.readFileSync(cardPath(vault, "people", "Alice"), "utf8");
    expect(text).toContain("MINE");
    expect(text).not.toContain("IMPORTED");
  });

  test("does not replace a card that changed since its plan was written (an outside editor)", () => {
    vault = tempVault();
    killedImport(vault, [{ rel: "people/Alice.md", replaces: true }]);
    const file = cardPath(vault, "people", "Alice");
    fs.writeFileSync(file, `${fs.readFileSync(file, "utf8")}EDITED OUTSIDE\n`);
    recoverImports(vault);
    expect(fs.readFileSync(file, "utf8")).toContain("EDITED OUTSIDE");
    expect(hasLeftovers(vault)).toBe(false);
  });

  test("still replaces a card that did not change since the plan (roll forward)", () => {
    vault = tempVault();
    killedImport(vault, [{ rel: "people/Alice.md", replaces: true }]);
    recoverImports(vault);
    expect(fs.readFileSync(cardPath(vault, "people", "Alice"), "utf8")).toBe(IMPORTED);
  });

  test.each([
    ["loadIndex", (v: Vault) => loadIndex(v, { persist: false }).cards.some((c) => c.key === "Zed")],
    ["readCard", (v: Vault) => readCard(v, "people", "Zed").key === "Zed"],
  ])("is finished before %s reads", (_name, read) => {
    vault = tempVault();
    killedImport(vault, [{ rel: "people/Zed.md", replaces: false }]);
    expect(read(vault)).toBe(true);
    expect(hasLeftovers(vault)).toBe(false);
  });

  test("a reader neither waits for nor touches the folder of an import that holds the lock", async () => {
    vault = tempVault();
    const stage = killedImport(vault, [{ rel: "people/Zed.md", replaces: false }]);
    const release = await acquireLock(vault.root);
    const lock = fs.readFileSync(lockPath(vault.root), "utf8");
    try {
      // loadIndex is synchronous and the lock stays held throughout: a reader that waited for it could
      // only fail. It reads instead, and leaves both the lock and the import's folder as they were.
      expect(loadIndex(vault, { persist: false }).cards.some((c) => c.key === "Zed")).toBe(false);
      expect(fs.readFileSync(lockPath(vault.root), "utf8")).toBe(lock);
      expect(fs.existsSync(stage)).toBe(true);
    } finally {
      release();
    }
  });
});
