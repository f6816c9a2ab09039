// A backup reads each file to hash it, for the manifest that goes first. `backup` holds what it read
// until it is written; a restore's backup of what it replaces reads each file again as it writes it,
// so a large vault is never in memory whole beside the restore staging. Read again, a file must be
// what was hashed, or the backup (and with it the restore) is refused: never an archive whose manifest
// vouches for bytes it does not hold.

import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backupSources } from "../../src/backup/_contents.ts";
import { type Holding, readSources } from "../../src/backup/_snapshot.ts";
import { restoreBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { type TempVault, tempVault, vaultFiles } from "../support/card-vault.ts";
import { backupVault, liveWalDatabase } from "./_helpers.ts";

let vault: TempVault | undefined;
let other: TempVault | undefined;
let scratch = "";
let db: Database | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  vault?.remove();
  other?.remove();
  vault = other = undefined;
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The vault's sources read one way or the other, with what each gives when asked for its bytes. */
function readAs(root: string, holding: Holding) {
  return readSources(backupSources(vaultForBackup(root)), scratch, { holding, withRecalls: true });
}

function withState(): TempVault {
  const v = backupVault();
  db = liveWalDatabase(path.join(v.root, ".lorecards", "history.db"), 40);
  fs.writeFileSync(path.join(v.root, ".lorecards", "hits.jsonl"), '{"card":"people/Alice"}\n');
  return v;
}

describe("a backup's files, held or read again", () => {
  test("give the same bytes either way, each its manifest's size and hash", () => {
    vault = withState();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-snap-"));
    const held = readAs(vault.root, "hold");
    const again = readAs(vault.root, "read-again");
    expect(again.map((f) => f.path)).toEqual(held.map((f) => f.path));
    expect(held.map((f) => f.path)).toContain(".lorecards/history.db");
    // What the manifest says of each, and nothing else: the bytes are never in it.
    expect(Object.keys(JSON.parse(JSON.stringify(again[0])))).toEqual([
      "path",
      "size",
      "sha256",
      "mode",
      "mtime",
    ]);
    for (const [i, f] of again.entries()) {
      const bytes = f.bytes();
      expect(bytes.length).toBe(f.size);
      expect(Bun.CryptoHasher.hash("sha256", bytes, "hex")).toBe(f.sha256);
      expect(new Uint8Array(bytes)).toEqual(new Uint8Array(held[i]!.bytes()));
    }
  });

  test("hits.jsonl appended to between the reads gives the lines of the first read", () => {
    vault = withState();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-snap-"));
    const hits = readAs(vault.root, "read-again").find((f) => f.path === ".lorecards/hits.jsonl")!;
    fs.appendFileSync(path.join(vault.root, ".lorecards", "hits.jsonl"), '{"card":"people/小林"}\n');
    expect(new TextDecoder().decode(hits.bytes())).toBe('{"card":"people/Alice"}\n');
  });

  test.each([
    [
      "edited to the same length",
      (abs: string) => fs.writeFileSync(abs, fs.readFileSync(abs, "utf8").replace("Lyon", "Nice")),
    ],
    ["grown", (abs: string) => fs.appendFileSync(abs, "More.\n")],
    ["removed", (abs: string) => fs.rmSync(abs)],
  ])("a card %s between the reads is refused, naming it", (_how, change) => {
    vault = withState();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-snap-"));
    const alice = readAs(vault.root, "read-again").find((f) => f.path === "people/Alice.md")!;
    change(path.join(vault.root, "people", "Alice.md"));
    let err: { code?: string; message?: string } = {};
    try {
      alice.bytes();
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("people/Alice.md changed while the backup was being written");
  });
});

describe("a forced restore whose backup of the vault finds a card changed as it writes", () => {
  test("is refused, the vault as it was with the edit, no backup and no staging left", async () => {
    other = backupVault();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-snap-"));
    const { file } = await writeBackup(vaultForBackup(other.root), { dir: scratch });
    // Four megabytes sort before the card that changes, so the archive is still being written (the
    // compressor takes a megabyte at a time) when the edit lands.
    const big = Array.from({ length: 100_000 }, (_, i) => `line ${i} of a long card\n`).join("");
    vault = tempVault({
      "events/A big one.md": big,
      "people/Zed.md": "---\nkeywords: [Zed]\n---\nx\n",
    });
    const zed = path.join(vault.root, "people", "Zed.md");
    const backups = path.join(vault.root, ".lorecards", "backups");
    let edited = false;
    const watch = setInterval(() => {
      const writing = fs.existsSync(backups) && fs.readdirSync(backups).some((n) => n.endsWith(".tmp"));
      if (writing && !edited) {
        fs.writeFileSync(zed, "---\nkeywords: [Zed]\n---\ny\n");
        edited = true;
      }
    }, 0);
    const err = await restoreBackup(file, { target: vault.root, force: true })
      .catch((e) => e)
      .finally(() => clearInterval(watch));
    expect(edited).toBe(true);
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("people/Zed.md changed while the backup was being written");
    const now = vaultFiles(vault.root);
    expect(now["people/Zed.md"]).toBe("---\nkeywords: [Zed]\n---\ny\n");
    expect(now["events/A big one.md"]).toBe(big);
    expect(now["people/Alice.md"]).toBeUndefined();
    expect(fs.readdirSync(backups)).toEqual([]);
    const state = fs.readdirSync(path.join(vault.root, ".lorecards"));
    expect(state.filter((n) => n.startsWith("restore-"))).toEqual([]);
  });
});
