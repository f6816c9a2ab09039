// The VaultSource: recall reads the vault without writing, unless the process says it should persist.
import { afterEach, describe, expect, test } from "bun:test";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join, relative } from "node:path";
import { contextText, injectedKeys, openEngine } from "../../src/recall/index.ts";
import { indexStale } from "../../src/vault/index.ts";
import { backdate, cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { until } from "../support/wait.ts";

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
    expect(injectedKeys(r)).toEqual(["Alice"]);
    vault.write("people/Carol.md", cardText("keywords: [Carol]", "new\n"));
    engine.invalidate();
    expect(injectedKeys(await engine.recall([user("Carol")]))).toEqual(["Carol"]);
    expect(everything(vault.root)).toEqual({ ...before, "people/Carol.md": expect.any(String) });
    expect(existsSync(join(vault.root, ".lorecards", "index.db"))).toBe(false);
    expect(existsSync(join(vault.root, ".lorecards", "matcher.bin"))).toBe(false);
  });

  test("an engine opened with persist saves the index and the matcher for the next cold start", async () => {
    vault = tempVault(files);
    backdate(vault.root); // settled cards: the next process has nothing to compare again

    await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([user("Alice")]);
    const state = join(vault.root, ".lorecards");
    // The index (with its write-ahead log) and the matcher, by modification time.
    const saved = () =>
      ["index.db", "index.db-wal", "matcher.bin"].map((f) =>
        existsSync(join(state, f)) ? statSync(join(state, f)).mtimeMs : "none",
      );
    const first = saved();
    expect(first[0]).not.toBe("none");
    expect(first[2]).not.toBe("none");
    // The next cold process finds both current and writes neither again.
    const again = await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([
      user("Alice"),
    ]);
    expect(injectedKeys(again)).toEqual(["Alice"]);
    expect(saved()).toEqual(first);
  });

  test("an engine without persistence still reads the snapshots another process saved", async () => {
    vault = tempVault(files);
    const first = await (await openEngine(vault.root, { segmenter: false, persist: true })).recall([
      user("Alice"),
    ]);
    const before = everything(vault.root);
    const second = await (await openEngine(vault.root, { segmenter: false })).recall([user("Alice")]);
    expect(contextText(second)).toBe(contextText(first));
    expect(everything(vault.root)).toEqual(before);
  });
});

describe("a long-running server's source", () => {
  const inPlace = (file: string, text: string) => {
    const fd = openSync(file, "r+");
    ftruncateSync(fd, 0);
    writeSync(fd, text);
    closeSync(fd);
  };

  test("sees an edit written in place as soon as its watcher names the file", async () => {
    vault = tempVault(files);
    backdate(vault.root);
    const engine = await openEngine(vault.root, { segmenter: false, persist: true, watch: true });
    try {
      expect(contextText(await engine.recall([user("Alice")]))).toContain("Alice runs payments.");
      inPlace(
        join(vault.root, "people/Alice.md"),
        cardText("keywords: [Alice]", "## who\nAlice now runs ops.\n"),
      );
      await until(
        async () => contextText(await engine.recall([user("Alice")])).includes("Alice now runs ops."),
        "the in-place edit to be seen",
      );
    } finally {
      engine.close();
    }
  });

  test("hands folder scans to its refresher and answers meanwhile from what it has", async () => {
    vault = tempVault(files);
    let release = () => {};
    let calls = 0;
    // The first call primes the server before its first load; later ones wait to be released.
    const refresher = () => {
      calls++;
      if (calls === 1) return Promise.resolve();
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    };
    const engine = await openEngine(vault.root, {
      segmenter: false,
      persist: true,
      watch: true,
      recheckMs: 20,
      refresher,
    });
    try {
      await engine.recall([user("Bob")]);
      // A new card moves its folder's mtime: the periodic folder check asks the refresher to settle it.
      vault.write("places/Cafe.md", cardText("keywords: [Cafe]", "A cafe.\n"));
      expect(calls).toBe(1);
      await until(() => calls > 1, "the refresher to be asked");
      // The refresher has not finished: requests are still answered at once.
      expect(injectedKeys(await engine.recall([user("Bob")]))).toEqual(["Bob"]);
      release();
      await until(
        async () => injectedKeys(await engine.recall([user("Cafe")])).includes("Cafe"),
        "the new card",
      );
    } finally {
      engine.close();
    }
  });

  test("a save its watcher named leaves no folder for the refresher to list again", async () => {
    vault = tempVault(files);
    backdate(vault.root);
    let calls = 0;
    const refresher = async () => {
      calls++;
    };
    // No periodic check in this test's time: what it would find is asked directly, below.
    const engine = await openEngine(vault.root, {
      segmenter: false,
      persist: true,
      watch: true,
      recheckMs: 3_600_000,
      refresher,
    });
    try {
      expect(contextText(await engine.recall([user("Alice")]))).toContain("Alice runs payments.");
      const card = join(vault.root, "people/Alice.md");
      writeFileSync(`${card}.tmp`, cardText("keywords: [Alice]", "## who\nAlice now runs ops.\n"));
      renameSync(`${card}.tmp`, card);
      await until(
        async () => contextText(await engine.recall([user("Alice")])).includes("Alice now runs ops."),
        "the save to be seen",
      );
      expect(indexStale(engine.vault, (await engine.index()).index)).toBe(false);
      expect(calls).toBe(1); // the first load's, before any save
    } finally {
      engine.close();
    }
  });

  test("re-reads settings.yaml while it runs, without a stat on every request", async () => {
    vault = tempVault({ "people/Bob.md": cardText("keywords: [Bob]", "Bob writes to {{char}}.\n") });
    const engine = await openEngine(vault.root, { segmenter: false, persist: true, watch: true });
    try {
      expect(contextText(await engine.recall([user("Bob")]))).toContain("Bob writes to {{char}}.");
      vault.write("settings.yaml", "char: Zed\n");
      await until(
        async () => contextText(await engine.recall([user("Bob")])).includes("Bob writes to Zed."),
        "the new character name",
      );
    } finally {
      engine.close();
    }
  });
});
