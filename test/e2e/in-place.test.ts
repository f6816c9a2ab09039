// An edit written into a card file in place (VS Code's and Obsidian's way of saving), which leaves the
// folder's mtime alone, is seen by the very next hook and `try` of the compiled binary: in a small vault
// because a cold load compares every file, in a large one (over STAT_ALL_MAX card files) because the
// keeper the first cold process started (`refresh --watch`, vault/keeper.ts) tells the index, and the
// next process asks it to catch up first; once up, the keeper answers the hook itself over the vault's
// socket, as a running gateway does. Every keeper a test starts is stopped by its pid.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { serveHooks } from "../../src/cli/_hook-server.ts";
import { openEngine } from "../../src/recall/index.ts";
import { FULL_CHECK_MS } from "../../src/vault/index.ts";
import { STAT_ALL_MAX } from "../../src/vault/keeper.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { keeperFile, keeperPid, stopKeeper } from "../support/keeper.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { until } from "../support/wait.ts";

const card = (keyword: string, text: string) => `---\nkeywords: [${keyword}]\n---\n${text}\n`;

/** A vault of `n` people cards, `person<i>` firing on `zname<i>`. */
function vaultOf(n: number): string {
  const root = tempDir();
  fs.mkdirSync(path.join(root, "people"));
  for (let i = 0; i < n; i++)
    fs.writeFileSync(path.join(root, "people", `person${i}.md`), card(`zname${i}`, `Card ${i}.`));
  return root;
}

/** Rewrite a file in place: same inode, the folder untouched, the mtime as a quick save leaves it. */
function writeInPlace(file: string, text: string): void {
  const fd = fs.openSync(file, "r+");
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, text, 0);
  fs.closeSync(fd);
}

async function tryContext(vault: string, words: string): Promise<string> {
  const r = await runBinary(["try", words, "--vault", vault, "--show-context"]);
  expect(r.code).toBe(0);
  return r.stdout;
}

const socket = (vault: string) => path.join(vault, ".lorecards", "hook.sock");

/** Whether a server listens on the socket now (a connection opens). */
function listening(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    Bun.connect({
      unix: file,
      socket: {
        open: (s) => {
          s.end();
          resolve(true);
        },
        data: () => {},
        error: () => resolve(false),
      },
    }).catch(() => resolve(false));
  });
}

/** One request over a hook socket, as the hook's client makes it; the server's answer. */
function askSocket(file: string, request: object): Promise<{ stdout: string; stderr?: string[] }> {
  return new Promise((resolve, reject) => {
    let text = "";
    Bun.connect({
      unix: file,
      socket: {
        open: (s) => void s.write(`${JSON.stringify(request)}\n`),
        data: (_s, chunk) => {
          text += Buffer.from(chunk).toString("utf8");
        },
        close: () => resolve(JSON.parse(text)),
        error: (_s, err) => reject(err),
      },
    }).catch(reject);
  });
}

beforeAll(() => ensureBinary(), 120_000);

describe("a small vault", () => {
  let vault = "";
  beforeAll(() => {
    vault = vaultOf(20);
  });
  afterAll(() => removeDir(vault));

  test("the next try sees an edit written in place, each time, with no keeper", async () => {
    expect(await tryContext(vault, "zname3")).toContain("Card 3.");
    for (const n of [1, 2, 3]) {
      writeInPlace(path.join(vault, "people", "person3.md"), card("zname3", `Edited ${n}.`));
      expect(await tryContext(vault, "zname3")).toContain(`Edited ${n}.`);
    }
    expect(keeperPid(vault)).toBeUndefined();
  });

  test("the next hook sees it too", async () => {
    writeInPlace(path.join(vault, "people", "person4.md"), card("zname4", "Hooked."));
    const stdin = JSON.stringify({
      session_id: "in-place",
      hook_event_name: "UserPromptSubmit",
      prompt: "zname4?",
    });
    const r = await runBinary(["hook", "--vault", vault], { stdin });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("Hooked.");
  });
});

describe(`a vault over ${STAT_ALL_MAX} card files`, () => {
  let vault = "";
  beforeAll(() => {
    vault = vaultOf(STAT_ALL_MAX + 100);
  });
  afterAll(async () => {
    await stopKeeper(vault);
    removeDir(vault);
  });

  test("the first cold process starts a keeper; every later try sees an edit written in place", async () => {
    await tryContext(vault, "zname1"); // indexes the new vault, finds it large and no keeper: starts one
    await until(() => keeperPid(vault) !== undefined, "the keeper to be up", 60_000);
    for (const n of [1, 2, 3]) {
      writeInPlace(path.join(vault, "people", "person7.md"), card("zname7", `Edited ${n}.`));
      expect(await tryContext(vault, "zname7")).toContain(`Edited ${n}.`);
    }
  }, 120_000);

  test("the hook asks the keeper too", async () => {
    await until(() => keeperPid(vault) !== undefined, "the keeper to be up", 60_000);
    writeInPlace(path.join(vault, "people", "person9.md"), card("zname9", "Hooked in a large vault."));
    const stdin = JSON.stringify({
      session_id: "in-place-big",
      hook_event_name: "UserPromptSubmit",
      prompt: "zname9?",
    });
    const r = await runBinary(["hook", "--vault", vault], { stdin });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("Hooked in a large vault.");
  }, 60_000);

  test("the keeper answers the hook itself, over the vault's socket, after an edit written in place", async () => {
    await until(() => keeperPid(vault) !== undefined && fs.existsSync(socket(vault)), "the keeper's socket");
    writeInPlace(path.join(vault, "people", "person13.md"), card("zname13", "Answered by the keeper."));
    const stdin = (session: string) =>
      JSON.stringify({ session_id: session, hook_event_name: "UserPromptSubmit", prompt: "zname13?" });
    // The request the hook's client sends (cli/hook-client.ts), asked of the socket directly: the
    // answer can only be the keeper's, and it is the hook's own.
    const request = { vault, argv: ["--no-learn"], stdin: stdin("kept"), env: {}, cwd: vault };
    const answer = await askSocket(socket(vault), request);
    expect(JSON.parse(answer.stdout).hookSpecificOutput.additionalContext).toContain(
      "Answered by the keeper.",
    );
    const hook = await runBinary(["hook", "--vault", vault, "--no-learn"], { stdin: stdin("kept-too") });
    expect(hook).toMatchObject({ code: 0, stdout: answer.stdout, stderr: "" });
  }, 60_000);

  test("a keeper that answers stands for the periodic full check: a try after a minute's idle compares no file itself", async () => {
    await until(() => keeperPid(vault) !== undefined, "the keeper to be up", 60_000);
    const db = new Database(path.join(vault, ".lorecards", "index.db"));
    const checked = () =>
      db.query<{ value: string }, []>("SELECT value FROM meta WHERE name = 'checked'").get();
    try {
      const idle = String(Date.now() - 2 * FULL_CHECK_MS);
      db.run("UPDATE meta SET value = ? WHERE name = 'checked'", [idle]);
      writeInPlace(path.join(vault, "people", "person11.md"), card("zname11", "Seen after idling."));
      expect(await tryContext(vault, "zname11")).toContain("Seen after idling.");
      expect(checked()?.value).toBe(idle);
    } finally {
      db.close();
    }
  }, 60_000);

  test("a keeper whose vault's socket another server holds answers the hook once that server is gone", async () => {
    await stopKeeper(vault);
    // Another server on the socket: one that answers hooks in this process, as a gateway would.
    const engine = await openEngine(vault, { watch: true });
    const other = await serveHooks({ vaultRoot: vault, engine: async () => engine, warn: () => {} });
    expect(other).toBeDefined();
    const keeper = Bun.spawn([await ensureBinary(), "refresh", "--watch", "--vault", vault], {
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await until(() => keeperPid(vault) === keeper.pid, "the keeper to be up", 60_000);
      await other!.close();
      engine.close();
      // The file is there from the bind on, a moment before anything listens: wait for an answer.
      await until(() => listening(socket(vault)), "the keeper to take the socket over", 60_000);
      const stdin = JSON.stringify({
        session_id: "taken-over",
        hook_event_name: "UserPromptSubmit",
        prompt: "zname15?",
      });
      const answer = await askSocket(socket(vault), {
        vault,
        argv: ["--no-learn"],
        stdin,
        env: {},
        cwd: vault,
      });
      expect(JSON.parse(answer.stdout).hookSpecificOutput.additionalContext).toContain("Card 15.");
    } finally {
      await stopKeeper(vault);
    }
  }, 120_000);

  test("a keeper with no request leaves after its idle time, and says so by removing its file", async () => {
    await stopKeeper(vault);
    const keeper = Bun.spawn([await ensureBinary(), "refresh", "--watch", "--idle", "1", "--vault", vault], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await until(() => keeperPid(vault) === keeper.pid, "the keeper to be up", 60_000);
    expect(await keeper.exited).toBe(0);
    expect(fs.existsSync(keeperFile(vault))).toBe(false);
    expect(fs.existsSync(socket(vault))).toBe(false);
  }, 120_000);
});

describe("a keeper whose vault goes away", () => {
  /** A keeper of a fresh small vault, up (its file names it); `--idle` long enough never to end it. */
  async function keeperOf(vault: string) {
    const keeper = Bun.spawn(
      [await ensureBinary(), "refresh", "--watch", "--idle", "3600", "--vault", vault],
      {
        stdout: "ignore",
        stderr: "pipe",
      },
    );
    await until(
      () => keeperPid(vault) === keeper.pid || keeper.exitCode !== null,
      "the keeper to be up",
      60_000,
    );
    expect(keeperPid(vault)).toBe(keeper.pid);
    return keeper;
  }

  test.each([
    ["is removed", (vault: string) => fs.rmSync(vault, { recursive: true, force: true })],
    [
      "is moved away and another folder takes its place",
      (vault: string) => {
        fs.renameSync(vault, `${vault}-old`);
        fs.mkdirSync(path.join(vault, "people"), { recursive: true });
      },
    ],
    [
      "is replaced by a copy of itself, keeper file and all",
      (vault: string) => {
        // The keeper's socket is no file to copy (cp -a makes a dead one; Node refuses).
        fs.cpSync(vault, `${vault}-copy`, {
          recursive: true,
          filter: (from) => !fs.lstatSync(from).isSocket(),
        });
        fs.rmSync(vault, { recursive: true, force: true });
        fs.renameSync(`${vault}-copy`, vault);
      },
    ],
    [
      "loses its .lorecards folder",
      (vault: string) => fs.rmSync(path.join(vault, ".lorecards"), { recursive: true }),
    ],
  ])(
    "leaves, cleanly, once the folder %s",
    async (_name, change) => {
      const vault = vaultOf(5);
      const keeper = await keeperOf(vault);
      try {
        change(vault);
        await until(() => keeper.exitCode !== null, "the keeper to leave");
        expect(keeper.exitCode).toBe(0);
        // Nothing but what the keeper says itself (that it keeps the vault, unless the vault went
        // before it said so; a line on hooks, when it went as the keeper began answering them), no
        // stack of a crash.
        const said = (await new Response(keeper.stderr).text()).split("\n").filter((l) => l !== "");
        for (const line of said) expect(line).toStartWith("lorecards: ");
      } finally {
        keeper.kill(9);
        removeDir(vault);
        removeDir(`${vault}-old`);
      }
    },
    150_000,
  );
});
