// Which paths a backup's manifest may name (a forged one must not write outside the vault, into a
// hidden folder, or over a cache), and the names backups carry, read back as the time they were made.
import { describe, expect, test } from "bun:test";
import { allowedPath } from "../../src/backup/_contents.ts";
import { manifestPieces, parseManifest } from "../../src/backup/_manifest.ts";
import { backupName, parseBackupName, timeStamp } from "../../src/backup/_names.ts";

describe("paths a manifest may name", () => {
  test.each([
    ["people/Alice.md", true],
    ["guide.md", true],
    ["_archive/people/Bob~2.md", true],
    ["人物/小林.md", true],
    ["kinds.yaml", true],
    ["settings.yaml", true],
    [".lorecards/state.db", true],
    [".lorecards/history.db", true],
    [".lorecards/marker-secret", true],
    [".lorecards/hits.jsonl", true],
    [".lorecards/index.db", false],
    [".lorecards/matcher.bin", false],
    [".lorecards/backups/daily-20250101T000000Z.tar.gz", false],
    [".lorecards/lock", false],
    ["../escaped.md", false],
    ["people/../../escaped.md", false],
    ["/etc/cron.d/x.md", false],
    ["people\\..\\x.md", false],
    ["./people/Alice.md", false],
    ["people//Alice.md", false],
    [".git/hooks/pre-commit.md", false],
    ["people/.Alice.md.123.0a1b2c3d.tmp", false],
    ["people/notes.txt", false],
    ["other.yaml", false],
    ["", false],
  ])("%s: %p", (p, allowed) => {
    expect(allowedPath(p)).toBe(allowed);
  });
});

describe("backup names", () => {
  const at = Date.UTC(2025, 2, 14, 2, 15, 9, 640);

  test("the time is UTC to the second, written so names sort as times do", () => {
    expect(timeStamp(at)).toBe("20250314T021509Z");
    expect(backupName("daily", at)).toBe("daily-20250314T021509Z.tar.gz");
    expect(backupName("manual", at, 2)).toBe("backup-20250314T021509Z-2.tar.gz");
    expect(backupName("before-restore", at)).toBe("before-restore-20250314T021509Z.tar.gz");
  });

  test.each([
    ["daily-20250314T021509Z.tar.gz", { kind: "daily", at: at - 640, n: 1 }],
    ["backup-20250314T021509Z-3.tar.gz", { kind: "manual", at: at - 640, n: 3 }],
    ["before-restore-20250314T021509Z.tar.gz", { kind: "before-restore", at: at - 640, n: 1 }],
    ["daily-20250314T021509Z.tar.gz.tmp", null],
    ["daily-2025-03-14.tar.gz", null],
    ["weekly-20250314T021509Z.tar.gz", null],
  ])("%s reads as %p", (name, parsed) => {
    expect(parseBackupName(name)).toEqual(parsed as never);
  });
});

describe("the manifest's text, written in pieces", () => {
  const about = {
    format: "lorecards-backup" as const,
    version: 1 as const,
    lorecards: "0.1.0",
    kind: "manual" as const,
    created: "2026-12-02T16:00:00.000Z",
    vault: "/home/ann/.lorecards",
    recalls: false,
  };
  const file = (i: number) => ({
    path: `people/小林 ${i}.md`,
    size: i,
    sha256: "0".repeat(64),
    mode: 420,
    mtime: i,
  });

  test.each([0, 1, 999, 1000, 1001, 2500])(
    "with %i files reads back as the manifest it was made from",
    (n) => {
      const manifest = { ...about, files: Array.from({ length: n }, (_, i) => file(i)) };
      const pieces = [...manifestPieces(manifest)];
      expect(parseManifest(pieces.join(""), "b.tar.gz")).toEqual(manifest);
      expect(pieces.length).toBe(2 + Math.ceil(n / 1000));
      // One file to a line, as a person reading it by hand would want.
      expect(
        pieces
          .join("")
          .split("\n")
          .filter((l) => l.includes('"sha256"')),
      ).toHaveLength(n);
    },
  );
});
