// The command line's rough edges, through the compiled binary: help by name and with examples, a guess
// at what a mistyped command or flag meant, one name for the scan window (the old one still works),
// exit codes as docs/CLI.md lists them, an honest word for a file that is no character card, an
// export into a missing folder naming the folder, and an interrupted import saying what became of
// the vault.
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { startFakeUpstream } from "../support/fake-upstream.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { streamText, until } from "../support/wait.ts";

let bin = "";
let vault = "";
let dir = "";
beforeAll(async () => {
  bin = await ensureBinary();
});
beforeEach(() => {
  vault = makeVault();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-cli-"));
});
afterEach(() => {
  removeDir(vault);
  fs.rmSync(dir, { recursive: true, force: true });
});

const lorecards = (...args: string[]) => runBinary([...args, "--vault", vault]);

describe("help", () => {
  test("lorecards help lists the commands, with examples, as --help does", async () => {
    const help = await runBinary(["help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runBinary(["--help"])).stdout);
    expect(help.stdout).toContain("EXAMPLES");
    expect(help.stdout).toContain("new");
  });

  test("lorecards help COMMAND is that command's help, its examples included", async () => {
    const help = await runBinary(["help", "try"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runBinary(["try", "--help"])).stdout);
    expect(help.stdout).toContain('EXAMPLES\n\n  lorecards try "how did the Friday deploy go?"');
  });
});

describe("a mistyped command or flag", () => {
  test.each([
    [["tyr", "hello"], 'unknown command "tyr"; did you mean "try"?'],
    [["try", "hello", "--scan-dept", "2"], "unknown flag --scan-dept; did you mean --scan-depth?"],
    [["--vualt", "x", "list"], "unknown flag --vualt; did you mean --vault?"],
    [["zzz"], 'unknown command "zzz" (lorecards help lists them)'],
  ])("%j is a usage error (exit 2) with a guess when one is close", async (args, message) => {
    const r = await runBinary(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe("the scan window has one name", () => {
  test.each([["--scan-depth"], ["--window"]])("the gateway takes %s", async (flag) => {
    const upstream = startFakeUpstream();
    const gw = Bun.spawn(
      [bin, "gateway", "--upstream", upstream.url, "--port", "0", flag, "1", "--json", "--vault", vault],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    try {
      const out = streamText(gw.stdout);
      await out.waitFor("\n");
      expect(JSON.parse(out.text())).toHaveProperty("url");
    } finally {
      gw.kill("SIGTERM");
      await gw.exited;
      await upstream.close();
    }
  });
});

describe("files named on the command line", () => {
  test.each([
    ["a file that is not there", () => path.join(dir, "nope.json"), 3, "no such file"],
    ["a folder", () => dir, 5, "is a directory, not a file"],
  ])("import of %s exits %i, naming it", async (_name, file, exit, message) => {
    const r = await lorecards("import", file());
    expect(r.code).toBe(exit);
    expect(r.stderr).toContain(message);
  });

  test.each([
    ['{"name": "just a name", "theme": "dark"}', "not a SillyTavern World Info book"],
    ['{"name": "Seraphina", "description": "A guardian.", "first_mes": "Hello."}', "is a V1 character card"],
  ])("%s is called what it is", async (json, message) => {
    const file = path.join(dir, "thing.json");
    fs.writeFileSync(file, json);
    const r = await lorecards("import", file);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(message);
  });

  test.each([
    ["init", []],
    ["try", ["hello"]],
  ] as [string, string[]][])(
    "%s on a vault path that is a file exits 5, saying so, and leaves the file alone",
    async (command, rest) => {
      const file = path.join(dir, `a-file-${command}`);
      fs.writeFileSync(file, "mine");
      const r = await runBinary([command, ...rest, "--vault", file, "--json"]);
      expect(r.code).toBe(5);
      expect(JSON.parse(r.stdout)).toEqual({
        error: "invalid_input",
        detail: `the vault path is not a directory: ${file}`,
      });
      expect(fs.readFileSync(file, "utf8")).toBe("mine");
    },
  );

  test("init under a path that is a file exits 5, saying so, and leaves the file alone", async () => {
    const file = path.join(dir, "a-file-above");
    fs.writeFileSync(file, "mine");
    const r = await runBinary(["init", path.join(file, "cards"), "--json"]);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({
      error: "invalid_input",
      detail: `the vault path is not a directory: a folder above ${path.join(file, "cards")} is a file`,
    });
    expect(fs.readFileSync(file, "utf8")).toBe("mine");
  });

  test("an export into a folder that does not exist names the folder, and writes nothing", async () => {
    const out = path.join(dir, "missing", "deeper", "book.json");
    const r = await lorecards("export", out, "--json");
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).detail).toBe(
      `the folder ${path.dirname(out)} does not exist; make it first (mkdir -p ${path.dirname(out)})`,
    );
    expect(fs.existsSync(path.join(dir, "missing"))).toBe(false);
  });
});

describe("an import interrupted", () => {
  test("while it stages its cards is rolled back, and says so", async () => {
    const entries = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [
        String(i),
        { uid: i, key: [`gadget ${i}`], comment: `gadget ${i}`, content: "x" },
      ]),
    );
    const book = path.join(dir, "big.json");
    fs.writeFileSync(book, JSON.stringify({ entries }));
    const before = vaultFiles(vault);
    const child = Bun.spawn([bin, "import", book, "--book", "main", "--kind", "thing", "--vault", vault], {
      stdout: "ignore",
      stderr: "pipe",
    });
    const err = streamText(child.stderr);
    const state = path.join(vault, ".lorecards");
    const staging = () =>
      fs.existsSync(state) &&
      fs
        .readdirSync(state)
        .some((n) => n.startsWith("import-") && fs.readdirSync(path.join(state, n)).length > 0);
    await until(() => staging() || child.exitCode !== null, "the import to stage its first cards");
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    await err.waitFor("\n");
    expect(err.text()).toContain(
      "interrupted: nothing was imported, the vault was rolled back and is as it was",
    );
    expect(vaultFiles(vault)).toEqual(before);
  });
});
