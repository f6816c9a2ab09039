// A restore that fails part way leaves the vault as it was: what it had moved aside is moved back.
// The failure is a real one: a file named `people` where the backup needs a folder.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { restoreBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { type TempVault, tempVault, vaultFiles } from "../support/card-vault.ts";
import { backupVault } from "./_helpers.ts";

let source: TempVault;
let target: TempVault;
let out: string;
afterEach(() => {
  source.remove();
  target.remove();
  fs.rmSync(out, { recursive: true, force: true });
});

describe("restoreBackup", () => {
  test("a move that fails part way through a forced restore puts every moved file back", async () => {
    source = backupVault();
    out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
    const { file } = await writeBackup(vaultForBackup(source.root), { dir: out });
    target = tempVault({
      "events/Launch.md": "---\nkeywords: [launch]\n---\nx\n",
      "settings.yaml": "user: Bo\n",
    });
    fs.rmdirSync(path.join(target.root, "people"));
    fs.writeFileSync(path.join(target.root, "people"), "a file where the backup needs a folder");
    const before = vaultFiles(target.root);
    const err = await restoreBackup(file, { target: target.root, force: true }).catch((e) => e);
    expect(err.code).toBe("io_error");
    expect(err.message).toContain("nothing was changed");
    expect(vaultFiles(target.root)).toEqual(before);
    const state = fs.readdirSync(path.join(target.root, ".lorecards"));
    expect(state.filter((n) => n.startsWith("restore-"))).toEqual([]);
    // The backup of what it was about to replace is kept all the same.
    expect(fs.readdirSync(path.join(target.root, ".lorecards", "backups"))).toHaveLength(1);
  });
});
