// Fuzzing restore-backup with forged archives: a real backup whose manifest is changed at random (a
// file's mode, size, hash or path, files added or left out) and whose tar gains entries of any kind
// (a symbolic link, a FIFO, a device, a file the manifest does not list). Each restore is refused as
// damaged (parse_error), writing nothing, or restores exactly what the manifest vouches for with the
// modes lorecards gives; nothing is ever written outside the target.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import fc from "fast-check";
import { restoreBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { tarBody, tarHeader } from "../backup/_helpers.ts";
import { SPECIALS } from "./_arbitraries.ts";
import {
  announce,
  attempt,
  expectCoded,
  expectFast,
  fuzz,
  initOddVault,
  type Sandbox,
  sandbox,
  timeoutFor,
} from "./_support.ts";

announce("backup");

let box: Sandbox;
let entries: [string, Uint8Array][];
let manifest: { files: Record<string, unknown>[] } & Record<string, unknown>;

beforeAll(async () => {
  box = sandbox(initOddVault);
  const dir = path.join(box.parent, "backups");
  const { file } = await writeBackup(vaultForBackup(box.root), { dir });
  entries = [];
  for (const [name, f] of await new Bun.Archive(fs.readFileSync(file)).files())
    entries.push([name, await f.bytes()]);
  manifest = JSON.parse(new TextDecoder().decode(entries.find(([n]) => n === "manifest.json")![1]));
});
afterAll(() => box.remove());

const change = fc.oneof(
  fc.record({ field: fc.constant("mode"), value: fc.integer({ min: -1, max: 0o177777 }) }),
  fc.record({ field: fc.constant("size"), value: fc.integer({ min: -1, max: 1 << 20 }) }),
  fc.record({ field: fc.constant("sha256"), value: fc.stringMatching(/^[0-9a-f]{64}$/) }),
  fc.record({ field: fc.constant("path"), value: fc.oneof(fc.constantFrom(...SPECIALS), fc.string()) }),
);
const extra = fc.record({
  type: fc.constantFrom("0", "1", "2", "3", "5", "6"),
  name: fc.oneof(
    fc.constantFrom("vault/people/Extra.md", "vault/../x.md", "/etc/x", "vault/.lorecards/lock"),
    fc.string(),
  ),
});

function forge(
  changes: { at: number; field: string; value: unknown }[],
  extras: { type: string; name: string }[],
) {
  const m = structuredClone(manifest);
  for (const c of changes) {
    const f = m.files[c.at % m.files.length];
    if (f) f[c.field] = c.value;
  }
  const parts: Uint8Array[] = [];
  for (const [name, bytes] of entries) {
    const body = name === "manifest.json" ? new TextEncoder().encode(JSON.stringify(m)) : bytes;
    parts.push(tarHeader(name, body.length), tarBody(body));
  }
  for (const e of extras)
    parts.push(
      tarHeader(e.name.slice(0, 99), e.type === "0" ? 1 : 0, e.type, "/etc/passwd"),
      ...(e.type === "0" ? [tarBody(new Uint8Array([120]))] : []),
    );
  parts.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(parts));
}

describe("restore-backup with forged archives", () => {
  const budget = { runs: 200, ms: 6000 };
  test(
    "refuses as damaged writing nothing, or restores what the manifest vouches for with lorecards' modes",
    async () => {
      const outside = box.outside();
      let n = 0;
      const property = fc.asyncProperty(
        fc.array(
          fc
            .record({ at: fc.nat(), field: fc.constant(""), value: fc.constant(0) })
            .chain((r) => change.map((c) => ({ ...r, ...c }))),
          { maxLength: 3 },
        ),
        fc.array(extra, { maxLength: 2 }),
        async (changes, extras) => {
          const archive = path.join(box.parent, `forged-${n}.tar.gz`);
          const target = path.join(box.parent, `restored-${n++}`);
          fs.writeFileSync(archive, forge(changes, extras));
          try {
            const r = await attempt(() => restoreBackup(archive, { target }));
            await expectFast(r, "restoreBackup");
            if (!r.ok) {
              expectCoded(r.error, ["parse_error", "invalid_input", "forbidden"]);
              expect(fs.existsSync(target)).toBe(false);
            } else {
              for (const f of fs.readdirSync(target, { recursive: true }) as string[]) {
                const st = fs.lstatSync(path.join(target, f));
                expect(st.isSymbolicLink()).toBe(false);
                if (!st.isFile() || f.includes("restore-")) continue;
                const mode = st.mode & 0o7777;
                expect(mode === 0o600 || mode === (0o644 & ~process.umask())).toBe(true);
              }
            }
            const now = box.outside();
            for (const k of Object.keys(now))
              if (!k.startsWith("forged-") && !k.startsWith("restored-") && !k.startsWith("backups"))
                expect(now[k]).toBe(outside[k]!);
          } finally {
            fs.rmSync(archive, { force: true });
            fs.rmSync(target, { recursive: true, force: true });
          }
        },
      );
      await fuzz("backup: forged archives", property, budget);
    },
    timeoutFor(budget),
  );
});
