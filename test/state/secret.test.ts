import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { markerSecret, secretPath } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe("marker secret", () => {
  test("is created on first use with owner-only permissions and then stays the same", () => {
    const root = tempDir();
    dirs.push(root);
    const first = markerSecret(root);
    expect(first).toMatch(/^[0-9a-f]{48}$/);
    expect(markerSecret(root)).toBe(first);
    if (process.platform !== "win32") expect(fs.statSync(secretPath(root)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(root, ".lorecards"))).toEqual(["marker-secret"]);
  });

  test("differs between vaults", () => {
    const a = tempDir();
    const b = tempDir();
    dirs.push(a, b);
    expect(markerSecret(a)).not.toBe(markerSecret(b));
  });

  test("a vault folder that does not exist is an error", () => {
    const root = tempDir();
    dirs.push(root);
    expect(() => markerSecret(path.join(root, "nope"))).toThrow();
    expect(fs.existsSync(path.join(root, "nope"))).toBe(false);
  });
});
