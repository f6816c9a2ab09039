// A forced restore killed at any point leaves the old vault or the new one, never a mix: a kill during
// the swap (once 6 in 6 such kills left old and new cards side by side, and `check` called it healthy)
// is finished by the next command that touches the vault, from the journal the swap wrote first; a
// kill while the files were being staged leaves the old vault, and its staging folder (a full copy of
// the backup) is removed by the next command.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { loadIndex, openVault } from "../../src/vault/index.ts";
import { type TempVault, tempVault, vaultFiles } from "../support/card-vault.ts";
import { backupVault } from "./_helpers.ts";

const BUN = path.resolve("node_modules/.bin/bun");
let source: TempVault;
let target: TempVault;
let out: string;
let archive: string;

beforeEach(async () => {
  source = backupVault();
  out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
  archive = (await writeBackup(vaultForBackup(source.root), { dir: out })).file;
  // The vault the restore replaces: other cards, an edited one, a settings file the backup lacks.
  target = tempVault({
    "people/Alice.md": "---\nkeywords: [Alice]\n---\n## who\nEdited since.\n",
    "people/Carol.md": "---\nkeywords: [Carol]\n---\n## who\nNew since.\n",
    "events/Launch.md": "---\nkeywords: [launch]\n---\nx\n",
    "style-dictionary.yaml": "entries: []\n",
  });
});
afterEach(() => {
  source.remove();
  target.remove();
  fs.rmSync(out, { recursive: true, force: true });
});

/** The files a restore brings: the source's, less what backups leave out. */
function restored(): Record<string, string> {
  const { "notes.txt": _, ...rest } = vaultFiles(source.root);
  return rest;
}

function killedAt(at: string): string {
  const r = Bun.spawnSync([BUN, "test/backup/_restore-child.ts", archive, target.root, at]);
  return r.stdout.toString();
}

const leftovers = () =>
  fs.readdirSync(path.join(target.root, ".lorecards")).filter((n) => n.startsWith("restore-"));

describe("a forced restore killed", () => {
  test("at every rename of its swap is finished by the next command: the vault is the new one", () => {
    const old = vaultFiles(target.root);
    let moves = 0;
    for (; ; moves++) {
      target.remove();
      target = tempVault();
      for (const [rel, text] of Object.entries(old)) target.write(rel, text);
      if (killedAt(`move:${moves}`) === "finished\n") break;
      loadIndex(openVault(target.root)); // a reader settles it, as any command does
      expect(vaultFiles(target.root)).toEqual(restored());
      expect(leftovers()).toEqual([]);
    }
    // The swap had work to do: the cards replaced, the ones that came in.
    expect(moves).toBeGreaterThan(8);
  }, 120_000);

  test("while staging leaves the old vault, and the next command removes what it staged", () => {
    const old = vaultFiles(target.root);
    expect(killedAt("stage")).toBe("");
    expect(leftovers()).toHaveLength(1);
    loadIndex(openVault(target.root));
    expect(vaultFiles(target.root)).toEqual(old);
    expect(leftovers()).toEqual([]);
  });
});
