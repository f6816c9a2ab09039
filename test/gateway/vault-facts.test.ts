/**
 * What a watching gateway knows of its vault folder between requests (src/gateway/_vault-facts.ts):
 * the folder, the guide and the secret's file are answered from a watcher, not looked at per request,
 * and a change behind the gateway's back is still seen: at the watcher's event, or for what no event
 * reaches (a folder above the vault moved), at the next look a second later. The clock is the test's,
 * so only the watcher can make a change seen until the test moves it on.
 */

import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { defaultKinds } from "../../src/card/index.ts";
import { type VaultFacts, vaultFacts } from "../../src/gateway/_vault-facts.ts";
import { TRUST_MS } from "../../src/watched-path.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

function watching(root: string, clock: { t: number }): VaultFacts {
  const facts = vaultFacts(root, { watch: true, now: () => clock.t });
  cleanup.push(() => facts.close());
  return facts;
}

/** Waits for the watcher's event to be handled: until `done()` holds, 2,000 turns at most. */
async function until(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 2000 && !done(); i++) await Bun.sleep(5);
  return done();
}

const kinds = () => defaultKinds();

describe("a watching gateway's vault facts", () => {
  test("a vault moved away is seen at the watcher's event, and its return at the next look", async () => {
    const vault = makeVault();
    cleanup.push(() => {
      removeDir(vault);
      removeDir(`${vault}-away`);
    });
    const clock = { t: 0 };
    const facts = watching(vault, clock);
    expect(facts.present()).toBe(true);
    fs.renameSync(vault, `${vault}-away`);
    expect(await until(() => !facts.present())).toBe(true);
    fs.renameSync(`${vault}-away`, vault);
    expect(facts.present()).toBe(true);
    // Watched again: moved away a second time, it is seen again without the clock moving.
    fs.renameSync(vault, `${vault}-away`);
    expect(await until(() => !facts.present())).toBe(true);
  });

  test("a folder above the vault moved sends no event: the answer stands until the next look", async () => {
    const parent = tempDir();
    cleanup.push(() => {
      removeDir(parent);
      removeDir(`${parent}-away`);
    });
    const vault = path.join(parent, "book");
    fs.renameSync(makeVault(), vault);
    const clock = { t: 0 };
    const facts = watching(vault, clock);
    expect(facts.present()).toBe(true);
    fs.renameSync(parent, `${parent}-away`);
    // No stat per request: the answer is the watcher's, and it heard nothing.
    expect(facts.present()).toBe(true);
    clock.t += TRUST_MS;
    expect(facts.present()).toBe(false);
  });

  test("guide.md created, edited and removed is read again at the watcher's event", async () => {
    const vault = makeVault();
    cleanup.push(() => removeDir(vault));
    const facts = watching(vault, { t: 0 });
    const k = kinds();
    expect(facts.present()).toBe(true);
    expect(facts.guide(k)).toBe("");
    const file = path.join(vault, "guide.md");
    fs.writeFileSync(file, "Keep notes of what lasts.\n");
    expect(await until(() => facts.guide(k) === "Keep notes of what lasts.")).toBe(true);
    fs.writeFileSync(file, "Write down names; never secrets.\n");
    expect(await until(() => facts.guide(k) === "Write down names; never secrets.")).toBe(true);
    fs.rmSync(file);
    expect(await until(() => facts.guide(k) === "")).toBe(true);
  });

  test("the secret's file deleted or replaced says the secret must be read again", async () => {
    const vault = makeVault();
    cleanup.push(() => removeDir(vault));
    const facts = watching(vault, { t: 0 });
    const file = path.join(vault, "secret-file");
    fs.writeFileSync(file, "one\n");
    expect(facts.secretChanged(file)).toBe(true);
    facts.secretRead(file);
    expect(facts.secretChanged(file)).toBe(false);
    fs.rmSync(file);
    expect(await until(() => facts.secretChanged(file))).toBe(true);
    fs.writeFileSync(`${file}.new`, "two\n");
    fs.renameSync(`${file}.new`, file);
    facts.secretRead(file);
    expect(facts.secretChanged(file)).toBe(false);
    fs.writeFileSync(`${file}.new`, "three\n");
    fs.renameSync(`${file}.new`, file);
    expect(await until(() => facts.secretChanged(file))).toBe(true);
  });

  test("without watching, every question looks at the disk", () => {
    const vault = makeVault();
    cleanup.push(() => {
      removeDir(vault);
      removeDir(`${vault}-away`);
    });
    const facts = vaultFacts(vault, { watch: false, now: () => 0 });
    cleanup.push(() => facts.close());
    expect(facts.present()).toBe(true);
    fs.writeFileSync(path.join(vault, "guide.md"), "Now.\n");
    expect(facts.guide(kinds())).toBe("Now.");
    fs.renameSync(vault, `${vault}-away`);
    expect(facts.present()).toBe(false);
    facts.secretRead(path.join(vault, "x"));
    expect(facts.secretChanged(path.join(vault, "x"))).toBe(true);
  });
});
