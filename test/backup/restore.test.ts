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

describe("an archive found damaged after some of its files were staged", () => {
  /** A backup of 300 cards whose last file, or its last card file, is changed: found only at its end. */
  async function damagedLate(how: "changed" | "missing"): Promise<string> {
    const cards: Record<string, string> = {};
    for (let i = 0; i < 300; i++) cards[`people/P${i}.md`] = `---\nkeywords: [p${i}]\n---\nPerson ${i}.\n`;
    source = tempVault(cards);
    out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
    const { file } = await writeBackup(vaultForBackup(source.root), { dir: out });
    const entries: [string, Uint8Array][] = [];
    for (const [name, f] of await new Bun.Archive(fs.readFileSync(file)).files())
      entries.push([name, await f.bytes()]);
    const last = entries.findLastIndex(([name]) => name.endsWith(".md"));
    if (how === "missing") entries.splice(last, 1);
    else entries[last]![1] = entries[last]![1].map((b, i) => (i === 0 ? b ^ 1 : b));
    const forged = path.join(out, `${how}.tar.gz`);
    fs.writeFileSync(
      forged,
      await new Bun.Archive(Object.fromEntries(entries), { compress: "gzip" }).bytes(),
    );
    return forged;
  }

  test.each(["changed", "missing"] as const)(
    "(the last card %s) is refused, and the target is as it was: nothing staged is left",
    async (how) => {
      const file = await damagedLate(how);
      // Into a folder that is not there: it is not there after.
      const into = path.join(out, "restored");
      let staged = 0;
      const progress = (done: number) => {
        staged = done;
      };
      const err = await restoreBackup(file, { target: into, progress }).catch((e) => e);
      expect(err.code).toBe("parse_error");
      expect(staged).toBeGreaterThan(0);
      expect(fs.existsSync(into)).toBe(false);
      // Over a vault: byte for byte as it was, no staging folder, nothing backed up (nothing was replaced).
      target = tempVault({ "people/Alice.md": "---\nkeywords: [Alice]\n---\nx\n" });
      const before = vaultFiles(target.root);
      staged = 0;
      const again = await restoreBackup(file, { target: target.root, force: true, progress }).catch((e) => e);
      expect(again.code).toBe("parse_error");
      expect(staged).toBeGreaterThan(0);
      expect(vaultFiles(target.root)).toEqual(before);
      const state = path.join(target.root, ".lorecards");
      const left = fs.existsSync(state) ? fs.readdirSync(state) : [];
      expect(left.filter((n) => n.startsWith("restore-") || n === "backups")).toEqual([]);
    },
  );
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
