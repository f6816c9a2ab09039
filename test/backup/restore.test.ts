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

describe("the modes a restore gives", () => {
  test("are lorecards' own, never a manifest's: cards 0644, the marker secret 0600", async () => {
    source = backupVault();
    fs.mkdirSync(path.join(source.root, ".lorecards"), { recursive: true });
    fs.writeFileSync(path.join(source.root, ".lorecards", "marker-secret"), "0123456789abcdef\n", {
      mode: 0o600,
    });
    out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
    const { file } = await writeBackup(vaultForBackup(source.root), { dir: out });
    // A forged manifest: every file 07777 (4095), the secret 0666.
    const entries: Record<string, Uint8Array> = {};
    for (const [name, f] of await new Bun.Archive(fs.readFileSync(file)).files())
      entries[name] = await f.bytes();
    const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
    for (const f of manifest.files) f.mode = f.path.endsWith("marker-secret") ? 0o666 : 4095;
    entries["manifest.json"] = new TextEncoder().encode(JSON.stringify(manifest));
    const forged = path.join(out, "forged.tar.gz");
    fs.writeFileSync(forged, await new Bun.Archive(entries, { compress: "gzip" }).bytes());
    target = tempVault();
    fs.rmSync(target.root, { recursive: true });
    await restoreBackup(forged, { target: target.root });
    const mode = (rel: string) => fs.statSync(path.join(target.root, rel)).mode & 0o7777;
    expect(mode("people/Alice.md")).toBe(0o644 & ~process.umask());
    expect(mode("settings.yaml")).toBe(0o644 & ~process.umask());
    expect(mode(".lorecards/marker-secret")).toBe(0o600);
  });
});
