// A cold process of the compiled binary looks at the vault once: it compares the cards with the index
// one time (listing a folder only when its names may have changed), however many times it reads the
// cards after that (a `try` asks how far back to read, then recalls; `--turns` recalls once per
// message). Counted with strace: the opens of a kind folder for listing, not a clock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const STRACE = "/usr/bin/strace";
const ready = prerequisite(
  fs.existsSync(STRACE),
  "test/e2e/cold-load.test.ts",
  `${STRACE} is missing (apt-get install -y strace)`,
);

let vault = "";
beforeAll(async () => {
  vault = makeVault();
  // The first run indexes the new vault; what follows is a cold process over an index that exists.
  expect((await runBinary(["try", "alice", "--vault", vault])).code).toBe(0);
});
afterAll(() => removeDir(vault));

/** How many times the run opened `folder` of the vault to list it. */
async function listings(args: string[], folder: string): Promise<number> {
  const log = path.join(vault, "..", `${path.basename(vault)}-strace.txt`);
  try {
    const proc = Bun.spawn(
      [STRACE, "-f", "-qq", "-e", "trace=openat", "-o", log, await ensureBinary(), ...args, "--vault", vault],
      { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: vault } },
    );
    expect(await proc.exited).toBe(0);
    const target = `"${path.join(vault, folder)}"`;
    return fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.includes(target) && line.includes("O_DIRECTORY")).length;
  } finally {
    fs.rmSync(log, { force: true });
  }
}

describe.skipIf(!ready)("a cold process looks at the vault once", () => {
  test.each([
    ["a try", ["try", "ask alice about the corner cafe"]],
    [
      "a try of three messages",
      [
        "try",
        "and the cafe?",
        "--turns",
        '[{"role":"user","text":"alice"},{"role":"user","text":"the deploy"}]',
      ],
    ],
    ["an explanation", ["explain", "ask alice about the corner cafe"]],
  ])("%s lists the people folder once at most", async (_name, args) => {
    expect(await listings(args, "people")).toBeLessThanOrEqual(1);
  });
});
