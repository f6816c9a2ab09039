// A backup holds what a reader of style memory would see: what hooks left in its inbox is learned into
// style.db before it is copied; and a restore moves the inbox aside with the style.db it belonged to,
// so the restored store does not learn again what its inbox's offsets say it has not (style/note.ts).
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { restoreBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { noteStyle, openStyle } from "../../src/style/index.ts";
import type { TempVault } from "../support/card-vault.ts";
import { removeDir } from "../support/vault.ts";
import { backupVault } from "./_helpers.ts";

const made: (TempVault | string)[] = [];
afterEach(() => {
  for (const m of made.splice(0)) typeof m === "string" ? removeDir(m) : m.remove();
});

async function count(root: string, signal: string): Promise<number | undefined> {
  const book = await openStyle(root);
  try {
    return (await book.list()).find((h) => h.signal === signal)?.count;
  } finally {
    await book.close();
  }
}

test("a backup learns the style inbox first; a restore sets the inbox aside with the store it replaces", async () => {
  const source = backupVault();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
  made.push(source, out);
  for (let i = 0; i < 3; i++) await noteStyle(source.root, {}, `c${i}`, "no cap lol");
  const inbox = path.join(source.root, ".lorecards", "style-inbox.jsonl");
  expect(fs.existsSync(inbox)).toBe(true);
  const { file } = await writeBackup(vaultForBackup(source.root), { dir: out });
  // Learned after the backup, into the store the restore replaces: gone with it, as at once.
  await noteStyle(source.root, {}, "c9", "no cap lol");
  await restoreBackup(file, { target: source.root, force: true });
  expect(fs.existsSync(inbox)).toBe(false);
  expect(await count(source.root, "no cap")).toBe(3);
});
