import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { indexPath, initVault, openVault, type Vault } from "../../src/vault/index.ts";

/** A fresh vault (with the example cards when `init`) in a temp dir; call `done()` to remove it. */
export function tempVault(init = true): Vault & { done: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
  if (init) initVault(root);
  const vault = openVault(root);
  return { ...vault, done: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export function write(vault: Vault, rel: string, text: string): string {
  const file = path.join(vault.root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

export const FIXTURES = path.join(import.meta.dir, "..", "fixtures", "cards");
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

/** Expect a promise or function to fail with a LoreError of this code; returns the error. */
export async function rejectsWith(
  code: string,
  run: () => unknown,
): Promise<{ code: string; data?: unknown; message: string }> {
  try {
    await run();
  } catch (err) {
    expect((err as { code?: string }).code).toBe(code);
    return err as { code: string; message: string };
  }
  throw new Error(`expected a LoreError ${code}`);
}

/** Run `fn` on the vault's index.db (as another process would), then close it. */
export function withIndexDb<T>(vault: Vault, fn: (db: Database) => T): T {
  const db = new Database(indexPath(vault));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The stored row of `rel` in index.db (src/vault/_index-row.ts), decoded. */
export function storedRow(vault: Vault, rel: string): unknown[] | undefined {
  const found = withIndexDb(vault, (db) => db.query("SELECT row FROM cards WHERE path = ?").get(rel)) as {
    row: string;
  } | null;
  return found ? JSON.parse(found.row) : undefined;
}

/** Replace the stored row of `rel` after `edit` changed it. */
export function editStoredRow(vault: Vault, rel: string, edit: (row: unknown[]) => void): void {
  const row = storedRow(vault, rel)!;
  edit(row);
  withIndexDb(vault, (db) =>
    db.query("UPDATE cards SET row = ? WHERE path = ?").run(JSON.stringify(row), rel),
  );
}
