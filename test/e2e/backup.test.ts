// `backup` and `restore-backup` through the compiled binary, on a vault with something in every place
// a backup reads: cards, a guide in the root, the archive, kinds.yaml, settings.yaml, the state the hook
// wrote, and a history.db whose rows are still only in its -wal file while a connection holds it open.
// A restore gives all of it back byte for byte (the databases row for row); a damaged or foreign
// archive changes nothing; --force keeps a backup of what it replaced; a server makes its daily one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backupVault, dumpDatabase, liveWalDatabase } from "../backup/_helpers.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type TempVault, vaultFiles } from "../support/card-vault.ts";

let vault: TempVault;
let scratch: string;
let archive: string;

const state = (root: string, name: string) => path.join(root, ".lorecards", name);

/** The vault's files a backup holds: all but the non-card file and our state folder. */
function backedUp(root: string): Record<string, string> {
  const { "notes.txt": _, ...rest } = vaultFiles(root);
  return rest;
}

async function cli(args: string[]) {
  const r = await runBinary(args);
  return { ...r, json: args.includes("--json") ? JSON.parse(r.stdout) : undefined };
}

beforeAll(async () => {
  await ensureBinary();
  vault = backupVault();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backup-"));
  // The hook writes state.db (conversation state) and hits.jsonl, as it does for Claude Code.
  const prompt = JSON.stringify({ session_id: "s1", hook_event_name: "UserPromptSubmit", prompt: "Alice?" });
  const hook = await runBinary(["hook", "--vault", vault.root], { stdin: prompt });
  expect(hook.stdout).toContain("Alice");
  const history = liveWalDatabase(state(vault.root, "history.db"), 300);
  expect(fs.statSync(`${state(vault.root, "history.db")}-wal`).size).toBeGreaterThan(0);
  const r = await cli(["backup", "--vault", vault.root, "--to", scratch, "--json"]);
  history.close();
  expect(r.code).toBe(0);
  archive = r.json.file;
});

afterAll(() => {
  vault.remove();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("backup and restore-backup (compiled binary)", () => {
  test("backup writes a .tar.gz named for the UTC time, readable only by its owner", () => {
    expect(path.basename(archive)).toMatch(/^backup-\d{8}T\d{6}Z\.tar\.gz$/);
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
  });

  test("restored into an empty folder, the vault comes back byte for byte, and its databases row for row", async () => {
    const into = path.join(scratch, "restored");
    const r = await cli(["restore-backup", archive, "--to", into, "--json"]);
    expect(r.code).toBe(0);
    expect(r.json.target).toBe(into);
    expect(backedUp(into)).toEqual(backedUp(vault.root));
    expect(fs.existsSync(path.join(into, "notes.txt"))).toBe(false);
    for (const file of ["hits.jsonl", "marker-secret"].filter((f) => fs.existsSync(state(vault.root, f)))) {
      expect(fs.readFileSync(state(into, file))).toEqual(fs.readFileSync(state(vault.root, file)));
      expect(fs.statSync(state(into, file)).mode & 0o777).toBe(0o600);
    }
    for (const db of ["state.db", "history.db"]) {
      expect(fs.existsSync(state(into, db))).toBe(true);
      expect(dumpDatabase(state(into, db))).toEqual(dumpDatabase(state(vault.root, db)));
    }
    expect((dumpDatabase(state(into, "history.db")).versions as unknown[]).length).toBe(300);
    expect(fs.existsSync(state(into, "index.db"))).toBe(false);
    const list = (root: string) =>
      runBinary(["list", "--vault", root, "--json"]).then((x) => JSON.parse(x.stdout));
    expect(await list(into)).toEqual(await list(vault.root));
  });

  test("a vault that is not empty is not restored over without --force", async () => {
    const before = vaultFiles(vault.root);
    const r = await cli(["restore-backup", archive, "--vault", vault.root, "--json"]);
    expect(r.code).toBe(4);
    expect(r.json.error).toBe("conflict");
    expect(r.json.detail).toContain("--force");
    expect(vaultFiles(vault.root)).toEqual(before);
  });

  test("--force replaces the vault with the backup, and first backs up what it replaces", async () => {
    const copy = path.join(scratch, "force");
    expect((await cli(["restore-backup", archive, "--to", copy])).code).toBe(0);
    fs.writeFileSync(path.join(copy, "people", "Alice.md"), "---\nkeywords: [Alice]\n---\n## who\nEdited.\n");
    fs.writeFileSync(path.join(copy, "people", "Carol.md"), "---\nkeywords: [Carol]\n---\n## who\nNew.\n");
    fs.rmSync(path.join(copy, "events", "the Friday deploy.md"));
    fs.rmSync(path.join(copy, "settings.yaml"));
    const changed = vaultFiles(copy);
    const r = await cli(["restore-backup", archive, "--to", copy, "--force", "--json"]);
    expect(r.code).toBe(0);
    expect(backedUp(copy)).toEqual(backedUp(vault.root));
    expect(path.dirname(r.json.replaced.file)).toBe(path.join(copy, ".lorecards", "backups"));
    expect(path.basename(r.json.replaced.file)).toMatch(/^before-restore-\d{8}T\d{6}Z\.tar\.gz$/);
    const back = path.join(scratch, "what-was-replaced");
    expect((await cli(["restore-backup", r.json.replaced.file, "--to", back])).code).toBe(0);
    expect(vaultFiles(back)).toEqual(changed);
    expect(fs.readdirSync(path.join(copy, ".lorecards")).filter((n) => n.startsWith("restore-"))).toEqual([]);
  });

  test.each([
    ["a flipped byte", (b: Uint8Array) => flip(b, Math.floor(b.length / 2))],
    ["a truncated file", (b: Uint8Array) => b.subarray(0, b.length - 100)],
    ["a file that is not gzip", () => new TextEncoder().encode("PK\u0003\u0004 a zip, say")],
    ["a tar.gz without a manifest", () => repack({ "people/Alice.md": "hi" })],
    [
      "a card changed after the manifest was written",
      (b: Uint8Array) => tamper(b, "vault/people/Alice.md", "x"),
    ],
    ["a file the manifest does not list", (b: Uint8Array) => tamper(b, "vault/people/Mallory.md", "x")],
    ["a manifest naming a path outside the vault", (b: Uint8Array) => outside(b)],
  ])("%s is refused with exit 5, and nothing is written", async (_, damage) => {
    const bad = path.join(scratch, "bad.tar.gz");
    fs.writeFileSync(bad, await damage(new Uint8Array(fs.readFileSync(archive))));
    const into = path.join(scratch, "never");
    const r = await cli(["restore-backup", bad, "--to", into, "--json"]);
    expect(r.code).toBe(5);
    expect(r.json.error).toBe("parse_error");
    expect(r.json.detail).toContain("nothing was restored");
    expect(fs.existsSync(into)).toBe(false);
    const before = vaultFiles(vault.root);
    const forced = await cli(["restore-backup", bad, "--vault", vault.root, "--force"]);
    expect(forced.code).toBe(5);
    expect(vaultFiles(vault.root)).toEqual(before);
    expect(fs.existsSync(path.join(vault.root, ".lorecards", "backups"))).toBe(false);
  });

  test("a file that is not there is not found (exit 3)", async () => {
    const r = await cli([
      "restore-backup",
      path.join(scratch, "nope.tar.gz"),
      "--to",
      path.join(scratch, "n"),
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no backup at");
  });
});

describe("backup --daily, for a timer or a cron job (compiled binary)", () => {
  test("it makes the daily backup only when none was made in the last 23 hours, and keeps the seven newest", async () => {
    const dir = path.join(scratch, "daily");
    fs.mkdirSync(dir);
    const old = Array.from({ length: 7 }, (_, i) => `daily-2020010${i + 1}T000000Z.tar.gz`);
    for (const name of [...old, "backup-20200101T000000Z.tar.gz"]) fs.writeFileSync(path.join(dir, name), "");
    const first = await cli(["backup", "--daily", "--to", dir, "--vault", vault.root, "--json"]);
    expect(first.code).toBe(0);
    expect(path.basename(first.json.made.file)).toMatch(/^daily-\d{8}T\d{6}Z\.tar\.gz$/);
    expect(first.json.made.recalls).toBe(false);
    const again = await cli(["backup", "--daily", "--to", dir, "--vault", vault.root, "--json"]);
    expect(again.json).toEqual({ made: null });
    expect(fs.readdirSync(dir).sort()).toEqual(
      ["backup-20200101T000000Z.tar.gz", ...old.slice(1), path.basename(first.json.made.file)].sort(),
    );
    fs.rmSync(dir, { recursive: true });
  });

  test("with --with-recalls it is refused (exit 2): a daily backup never keeps them", async () => {
    const r = await cli(["backup", "--daily", "--with-recalls", "--vault", vault.root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("drop --with-recalls");
  });
});

describe("the daily backup of a server (compiled binary)", () => {
  test("gateway makes its first daily backup at start and keeps the seven newest daily ones", async () => {
    const dir = path.join(vault.root, ".lorecards", "backups");
    fs.mkdirSync(dir, { recursive: true });
    const old = Array.from({ length: 8 }, (_, i) => `daily-2020010${i + 1}T000000Z.tar.gz`);
    for (const name of [...old, "backup-20200101T000000Z.tar.gz"]) fs.writeFileSync(path.join(dir, name), "");
    const after = await runServer(["gateway", "--upstream", "http://127.0.0.1:9", "--vault", vault.root]);
    expect(after.stderr).toContain("lorecards: daily backup ");
    const names = fs.readdirSync(dir).sort();
    const made = names.filter((n) => n.startsWith("daily-") && !old.includes(n));
    expect(made).toHaveLength(1);
    expect(names).toEqual(["backup-20200101T000000Z.tar.gz", ...old.slice(2), made[0]!].sort());
    fs.rmSync(dir, { recursive: true });
  });

  test("a daily backup that fails is one warning line from the server, naming what failed", async () => {
    const dir = path.join(vault.root, ".lorecards", "backups");
    fs.writeFileSync(dir, "a file where the backups folder goes");
    try {
      const after = await runServer(["gateway", "--upstream", "http://127.0.0.1:9", "--vault", vault.root]);
      expect(after.stderr).toContain(
        "lorecards: warning: the daily backup failed (cannot create the backup folder",
      );
      expect(after.stderr).toContain("it is tried again every hour");
    } finally {
      fs.rmSync(dir);
    }
  });

  test("ui --no-backups makes none", async () => {
    await runServer(["ui", "--port", "0", "--no-backups", "--vault", vault.root]);
    expect(fs.existsSync(path.join(vault.root, ".lorecards", "backups"))).toBe(false);
  });
});

/**
 * Start a server, and stop it (SIGTERM) as soon as it says it listens. The daily backup starts right
 * after that line and a stop waits for it, so when the process has exited its backup is on disk.
 */
async function runServer(args: string[]): Promise<{ stderr: string }> {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, ...args, "--port", "0", "--json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: scratch },
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  proc.kill("SIGTERM");
  const stderr = await new Response(proc.stderr).text();
  await proc.exited;
  expect(out).toContain('"url"');
  return { stderr };
}

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at]! ^= 0xff;
  return out;
}

function repack(entries: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  return new Bun.Archive(entries, { compress: "gzip" }).bytes();
}

async function entriesOf(bytes: Uint8Array): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const [name, file] of await new Bun.Archive(bytes).files()) out[name] = await file.bytes();
  return out;
}

async function tamper(bytes: Uint8Array, name: string, text: string): Promise<Uint8Array> {
  return repack({ ...(await entriesOf(bytes)), [name]: text });
}

/** A manifest that vouches (size and hash right) for a file at `../escaped.md`. */
async function outside(bytes: Uint8Array): Promise<Uint8Array> {
  const entries = await entriesOf(bytes);
  const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
  const text = new TextEncoder().encode("escaped");
  const sha256 = new Bun.CryptoHasher("sha256").update(text).digest("hex");
  manifest.files.push({ path: "../escaped.md", size: text.length, sha256, mode: 0o644, mtime: 0 });
  return repack({ ...entries, "manifest.json": JSON.stringify(manifest), "vault/../escaped.md": text });
}
