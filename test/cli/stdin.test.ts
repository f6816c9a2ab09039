/**
 * The hook's stdin (cli/_stdin.ts) is read whole: in pieces, across a multi-byte character, and from a
 * stdin left non-blocking that has nothing in it yet when the hook starts.
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readAllStdin } from "../../src/cli/_stdin.ts";

let dir = "";
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A FIFO whose reading end is open without blocking, and a writer process `script` feeds it from. */
function nonBlockingFifo(script: string): { fd: number; writer: ReturnType<typeof Bun.spawn> } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lorecards-stdin-"));
  const fifo = path.join(dir, "in");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const out = fs.openSync(fifo, fs.constants.O_WRONLY);
  const writer = Bun.spawn(["sh", "-c", script], { stdout: out, stderr: "inherit" });
  fs.closeSync(out);
  return { fd, writer };
}

test("a non-blocking stdin that is empty at first is read to its end, not taken as empty", async () => {
  // 100,000 bytes with a three-byte character across the 65,536-byte reads.
  const { fd, writer } = nonBlockingFifo(
    `sleep 0.3; printf 'a%.0s' $(seq 65535); printf '北'; head -c 34462 /dev/zero | tr '\\0' z`,
  );
  const text = readAllStdin(fd);
  fs.closeSync(fd);
  await writer.exited;
  expect(text.length).toBe(65535 + 1 + 34462);
  expect(text.slice(65530, 65540)).toBe("aaaaa北zzzz");
});
