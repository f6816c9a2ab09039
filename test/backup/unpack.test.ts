// A backup is read back trusting nothing, in memory bounded by what its manifest vouches for: a gzip
// bomb once cost 2.16 GB before it was refused (the unpack cap equalled the limit), and an unlisted
// symbolic link or FIFO entry was passed over where an unlisted file refuses the archive.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { readBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import type { TempVault } from "../support/card-vault.ts";
import { backupVault, tarBody, tarHeader } from "./_helpers.ts";

const BUN = path.resolve("node_modules/.bin/bun");
let source: TempVault;
let dir: string;
let good: string;
/** The manifest and the entries of a real backup, to forge archives from. */
let entries: Record<string, Uint8Array>;

beforeAll(async () => {
  source = backupVault();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-unpack-"));
  good = (await writeBackup(vaultForBackup(source.root), { dir })).file;
  entries = {};
  for (const [name, f] of await new Bun.Archive(fs.readFileSync(good)).files())
    entries[name] = await f.bytes();
});
afterAll(() => {
  source.remove();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A .tar.gz of the real backup's entries, then `extra` tar blocks, written as a file. */
function forged(name: string, extra: Uint8Array[]): string {
  const parts: Uint8Array[] = [];
  for (const [entry, bytes] of Object.entries(entries))
    parts.push(tarHeader(entry, bytes.length), tarBody(bytes));
  parts.push(...extra, Buffer.alloc(1024));
  const file = path.join(dir, name);
  fs.writeFileSync(file, zlib.gzipSync(Buffer.concat(parts)));
  return file;
}

/** A gzip bomb: after the manifest, an entry of `mib` MiB of zeros, written as a stream. */
async function bomb(mib: number): Promise<string> {
  const file = path.join(dir, `bomb-${mib}.tar.gz`);
  const gz = zlib.createGzip({ level: 9 });
  const out = fs.createWriteStream(file);
  const done = new Promise((resolve) => out.on("finish", resolve));
  gz.pipe(out);
  const manifest = entries["manifest.json"]!;
  gz.write(tarHeader("manifest.json", manifest.length));
  gz.write(tarBody(manifest));
  gz.write(tarHeader("vault/people/Alice.md", mib * 1024 * 1024));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once("drain", r));
  gz.end(Buffer.alloc(1024));
  await done;
  return file;
}

/** The peak memory (KiB) of a process that reads `file` as a backup, refused or not. */
function peakOf(file: string): number {
  const script = `import { readBackup } from "./src/backup/index.ts";
await readBackup(${JSON.stringify(file)}).catch(() => {});
process.stdout.write(String(process.resourceUsage().maxRSS));`;
  const r = Bun.spawnSync([BUN, "-e", script]);
  return Number(r.stdout.toString());
}

describe("reading a backup back", () => {
  test("a gzip bomb is refused at its first header, in the memory a small backup takes", async () => {
    const file = await bomb(600);
    const err = await readBackup(file).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain(`people/Alice.md has ${600 * 1024 * 1024} bytes, not`);
    // Against a real backup read in the same run: the bomb may cost 64 MiB more at most.
    expect(peakOf(file) - peakOf(good)).toBeLessThan(64 * 1024);
  }, 120_000);

  test.each([
    ["a symbolic link", tarHeader("vault/people/link.md", 0, "2", "/etc/passwd"), "is a symbolic link"],
    ["a FIFO", tarHeader("vault/people/pipe.md", 0, "6"), "is a FIFO"],
    ["a hard link", tarHeader("vault/people/hard.md", 0, "1", "vault/people/Alice.md"), "is a hard link"],
    ["a device", tarHeader("vault/people/dev.md", 0, "3"), "is a character device"],
  ])("an unlisted entry that is %s refuses the archive", async (_name, header, why) => {
    const err = await readBackup(forged("odd.tar.gz", [header])).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toMatchObject({ code: "parse_error" });
    expect(err?.message).toContain(why);
  });

  test("a real backup reads back whole", async () => {
    const { files } = await readBackup(good);
    expect(new TextDecoder().decode(files.get("people/Alice.md"))).toContain("Lyon");
  });
});
