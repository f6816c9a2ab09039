// Staged files made durable at once (vault/_sync-fs.ts): one syncfs of their file system where Linux
// has it, else an fsync of every file under the staging folder, nested ones too.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fsyncEach, syncsAtOnce, syncWritten } from "../../src/vault/_sync-fs.ts";
import { spyOnFsyncs } from "../support/fsync-spy.ts";

let dir = "";
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A staging folder: files at its top and in a nested folder, and a link that is no file of ours. */
function staged(): string[] {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-sync-"));
  const files = ["0.md", "1.md", "people/Alice.md", "people/deep/Bob.md"].map((f) => path.join(dir, f));
  for (const f of files) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `text of ${path.basename(f)}\n`);
  }
  fs.symlinkSync("/etc/hostname", path.join(dir, "link.md"));
  return files;
}

/** The paths fs.fsyncSync was called on while `fn` ran. */
function fsynced(fn: () => void): string[] {
  const synced: string[] = [];
  const spies = spyOnFsyncs((p) => synced.push(p));
  try {
    fn();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return synced;
}

describe("making staged files durable at once", () => {
  test("without syncfs, every file under the folder is fsynced once, nested ones too, and no link", () => {
    const files = staged();
    expect(fsynced(() => fsyncEach(dir)).sort()).toEqual([...files].sort());
  });

  test.skipIf(process.platform !== "linux")(
    "on Linux one syncfs of the folder's file system does it: no file is fsynced one by one",
    () => {
      staged();
      expect(syncsAtOnce()).toBe(true);
      expect(fsynced(() => syncWritten(dir))).toEqual([]);
    },
  );
});
