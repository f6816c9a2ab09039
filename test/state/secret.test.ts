// The sqlite backend keeps the marker secret as a file beside state.db, private to its owner.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, type Store, secretPath, stateUrl } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function secretOf(root: string): Promise<string> {
  const store = await openStore(stateUrl(root));
  stores.push(store);
  return store.markerSecret();
}

describe("marker secret file", () => {
  test("is created on first use with owner-only permissions and then stays the same", async () => {
    const root = tempDir();
    dirs.push(root);
    const first = await secretOf(root);
    expect(first).toMatch(/^[0-9a-f]{48}$/);
    expect(await secretOf(root)).toBe(first);
    if (process.platform !== "win32") expect(fs.statSync(secretPath(root)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(root, ".lorecards")).sort()).toEqual([".gitignore", "marker-secret"]);
  });

  test("a deleted secret is made anew, and every handle reads the new one", async () => {
    const root = tempDir();
    dirs.push(root);
    const first = await secretOf(root);
    fs.rmSync(path.join(root, ".lorecards"), { recursive: true });
    const store = stores[0]!;
    const second = await store.markerSecret();
    expect(second).not.toBe(first);
    expect(await secretOf(root)).toBe(second);
  });

  test("a vault folder that does not exist is an error", async () => {
    const root = tempDir();
    dirs.push(root);
    await expect(secretOf(path.join(root, "nope"))).rejects.toThrow();
    expect(fs.existsSync(path.join(root, "nope"))).toBe(false);
  });
});
