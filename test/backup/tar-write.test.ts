// The archive a backup writes, read by tar(1) as a person restoring by hand would (OPERATIONS.md
// "Backups": `tar xzf FILE -C x`, and x/vault/ is the vault), and by our own reader: every name,
// one in Chinese and one past ustar's 100 bytes among them, and every byte, mode and time.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeTarGz } from "../../src/backup/_tar-write.ts";
import { readBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { type TempVault, tempVault } from "../support/card-vault.ts";
import { VAULT_FILES } from "./_helpers.ts";

const LONG = `people/${"a very long card name ".repeat(6).trim()}.md`; // past 100 bytes with the prefix
const FILES: Record<string, string> = {
  ...VAULT_FILES,
  "people/王小明的朋友.md": "---\nkeywords: [王小明]\n---\n## who\n一个朋友。\n",
  [LONG]: "---\nkeywords: [long]\n---\nA card with a long name.\n",
  "things/empty.md": "",
};

let vault: TempVault | undefined;
let scratch = "";
afterEach(() => {
  vault?.remove();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

const tar = (args: string[]) => Bun.spawnSync(["tar", ...args], { stderr: "pipe", stdout: "pipe" });

describe("the archive a backup writes", () => {
  test("tar(1) unpacks it: every card byte for byte, under its own name, with its time", async () => {
    vault = tempVault(FILES);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tar-"));
    const when = new Date("2024-05-06T07:08:09Z");
    fs.utimesSync(path.join(vault.root, "people/王小明的朋友.md"), when, when);
    const made = await writeBackup(vaultForBackup(vault.root), { dir: path.join(scratch, "b") });
    const out = path.join(scratch, "x");
    fs.mkdirSync(out);
    const r = tar(["xzf", made.file, "-C", out]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    for (const [rel, text] of Object.entries(FILES)) {
      if (rel === "notes.txt") continue; // not a card: never in a backup
      expect(fs.readFileSync(path.join(out, "vault", rel), "utf8")).toBe(text);
    }
    expect(fs.statSync(path.join(out, "vault/people/王小明的朋友.md")).mtime.getTime()).toBe(when.getTime());
    expect(JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")).files).toHaveLength(
      made.files,
    );
  });

  test("our reader takes back what tar(1) lists, in the same order, the manifest first", async () => {
    vault = tempVault(FILES);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tar-"));
    const made = await writeBackup(vaultForBackup(vault.root), { dir: scratch });
    const listed = tar(["tzf", made.file]).stdout.toString().trim().split("\n");
    expect(listed[0]).toBe("manifest.json");
    const back = await readBackup(made.file);
    expect(["manifest.json", ...[...back.files.keys()].map((p) => `vault/${p}`)]).toEqual(listed);
    expect(new TextDecoder().decode(back.files.get(LONG))).toBe(FILES[LONG]!);
  });

  test.each([
    [0, "an empty file"],
    [511, "a file a byte short of a block"],
    [512, "a file of one block"],
    [1024 * 1024 + 7, "a file past the writer's megabyte buffer"],
  ])("a file of %i bytes (%s) comes back whole", async (size) => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tar-"));
    const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31) % 251);
    const file = path.join(scratch, "a.tar.gz");
    const fd = fs.openSync(file, "w");
    await writeTarGz(fd, [
      { name: "x/first.bin", bytes },
      { name: "x/second.txt", bytes: Buffer.from("after") },
    ]);
    fs.closeSync(fd);
    const r = tar(["xzf", file, "-C", scratch]);
    expect(r.exitCode).toBe(0);
    expect(new Uint8Array(fs.readFileSync(path.join(scratch, "x/first.bin")))).toEqual(bytes);
    expect(fs.readFileSync(path.join(scratch, "x/second.txt"), "utf8")).toBe("after");
  });
  test("a text entry comes back as its UTF-8, emoji and Chinese across every megabyte's edge and between its pieces", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tar-"));
    // Odd lengths put a surrogate pair, or a three-byte character, where each megabyte window ends.
    const text = Array.from({ length: 120_000 }, (_, i) => `${i} 😂 小林 ${"x".repeat(i % 7)}\n`).join("");
    const cut = text.indexOf("\n", 1000) + 1;
    const file = path.join(scratch, "t.tar.gz");
    const fd = fs.openSync(file, "w");
    await writeTarGz(fd, [
      { name: "x/manifest.json", text: () => [text.slice(0, cut), text.slice(cut)] },
      { name: "x/after.txt", bytes: Buffer.from("after") },
    ]);
    fs.closeSync(fd);
    expect(tar(["xzf", file, "-C", scratch]).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(scratch, "x/manifest.json"))).toEqual(Buffer.from(text, "utf8"));
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024);
    expect(fs.readFileSync(path.join(scratch, "x/after.txt"), "utf8")).toBe("after");
  });
});
