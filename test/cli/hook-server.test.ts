/**
 * The hook asks a running server on its vault first (cli/hook-client.ts, cli/_hook-server.ts): the
 * answer is the one the hook gives on its own, made on the server's engine; what the server cannot
 * take as it is (another store, a session's start) and a server that is gone leave the hook to run
 * itself, as before. The socket is the user's alone, and a live server's socket is never taken over.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { serveHooks } from "../../src/cli/_hook-server.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const MAIN = path.join(import.meta.dir, "../../src/main.ts");

let vault = "";
let engine: Engine;
let asked = 0;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  vault = makeVault();
  engine = await openEngine(vault, { watch: true });
  asked = 0;
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  engine.close();
  removeDir(vault);
});

async function server() {
  const s = await serveHooks({
    vaultRoot: vault,
    engine: async () => {
      asked++;
      return engine;
    },
    warn: () => {},
  });
  if (s) closers.push(() => s.close());
  return s;
}

const socket = () => path.join(vault, ".lorecards", "hook.sock");
const prompt = (text: string, session: string) =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: session, cwd: vault, prompt: text });

/**
 * `lorecards hook` as Claude Code starts it: a process of its own, the hook JSON on stdin (spawned
 * without blocking: the server answering it runs in this process).
 */
async function hook(stdin: string, ...flags: string[]) {
  const p = Bun.spawn([process.execPath, MAIN, "hook", "--vault", vault, "--no-learn", ...flags], {
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}

describe("a hook beside a running server", () => {
  test("is answered by the server, with the answer the hook gives on its own", async () => {
    const s = await server();
    expect(s).toBeDefined();
    expect(fs.statSync(socket()).mode & 0o777).toBe(0o600);
    const served = await hook(prompt("how did the friday deploy go?", "s1"));
    expect(asked).toBe(1);
    await s!.close();
    expect(fs.existsSync(socket())).toBe(false);
    const alone = await hook(prompt("how did the friday deploy go?", "s2"));
    expect(served).toEqual({ code: 0, stdout: alone.stdout, stderr: "" });
    expect(served.stdout).toContain("the Friday deploy");
  });

  test("keeps the session's ledger in the vault's state: a card in context is not sent again", async () => {
    await server();
    expect((await hook(prompt("the friday deploy?", "s1"))).stdout).toContain("the Friday deploy");
    expect((await hook(prompt("the friday deploy, again", "s1"))).stdout).toBe("");
    expect(asked).toBe(2);
  });

  test("a session's start, or a hook on another store, runs on its own and answers the same", async () => {
    await server();
    const start = JSON.stringify({ hook_event_name: "SessionStart", session_id: "s1", source: "startup" });
    expect((await hook(start)).code).toBe(0);
    const other = await hook(prompt("the friday deploy?", "s1"), "--store", "memory:");
    expect(other.stdout).toContain("the Friday deploy");
    expect(asked).toBe(0);
  });

  test("a socket left by a server that died is no answer: the hook runs itself; the next server takes the path", async () => {
    const first = await server();
    // What a killed server leaves: the file, with nobody listening on it.
    const left = `${socket()}.left`;
    fs.linkSync(socket(), left);
    await first!.close();
    fs.renameSync(left, socket());
    expect((await hook(prompt("the friday deploy?", "s1"))).stdout).toContain("the Friday deploy");
    expect(asked).toBe(0);
    expect(await server()).toBeDefined();
    expect((await hook(prompt("the friday deploy?", "s2"))).stdout).toContain("the Friday deploy");
    expect(asked).toBe(1);
  });

  test("a second server on the same vault leaves the live one its socket", async () => {
    expect(await server()).toBeDefined();
    expect(await server()).toBeUndefined();
    await hook(prompt("the friday deploy?", "s1"));
    expect(asked).toBe(1);
  });
});
