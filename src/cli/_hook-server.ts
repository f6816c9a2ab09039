/**
 * A running gateway or editor answers the hook for its vault (cli/hook-client.ts): on a Unix socket
 * in the vault's state folder (cli/_hook-socket.ts, mode 0600), one request a connection, a line of
 * JSON each way. The hook runs here as it would in a process of its own, with the flags and the
 * environment the client sent, but on this server's engine (its index, matcher and card bodies warm,
 * kept current by its watcher) and one store kept open. What would have gone to the hook's stderr
 * comes back to the client, which prints it. Anything this side cannot take as it is (another vault,
 * argv only citty parses, a store of another URL) is answered `fallback`, and the client runs the
 * hook itself. A socket another live server holds is left to it; a dead one's is taken over.
 */
import { chmodSync, existsSync, mkdirSync, rmSync, type Stats, statSync } from "node:fs";
import path from "node:path";
import { describeError } from "../errors.ts";
import type { Engine } from "../recall/index.ts";
import { openStore, type Store, stateUrl } from "../state/index.ts";
import { STATE_DIR } from "../state-dir.ts";
import { hookSocketPath, privateSocketFolder } from "./_hook-socket.ts";
import { simpleArgs } from "./_parse.ts";
import { type HookArgs, hookArgs, hookOptions } from "./hook.ts";
import type { HookAnswer } from "./hook-client.ts";

export interface HookServerOptions {
  vaultRoot: string;
  /** The server's engine, opened when first needed. */
  engine: () => Promise<Engine>;
  /** The server's state URL when it names one (`--store`); a hook that names another runs itself. */
  state?: string;
  warn: (line: string) => void;
  /** Waited for before each hook: the vault's keeper catches up with every change made before it. */
  catchUp?: () => Promise<unknown>;
  /**
   * Make the vault's state folder when it is missing (default true). A keeper passes false: its state
   * folder gone means its vault is going away, not a folder to make again.
   */
  makeFolder?: boolean;
}

export interface HookServer {
  close(): Promise<void>;
}

interface Request {
  vault: string;
  argv: string[];
  stdin: string;
  env: Record<string, string>;
}

/** Starts answering hooks for the vault; undefined when this platform or vault has no socket for it. */
export async function serveHooks(options: HookServerOptions): Promise<HookServer | undefined> {
  const socket = hookSocketPath(options.vaultRoot, process.env);
  if (socket === undefined || !(await claim(socket, options.makeFolder !== false))) return undefined;
  let store: Promise<Store> | undefined;
  const sharedStore = () => {
    store ??= openStore(options.state ?? stateUrl(options.vaultRoot), { warn: options.warn });
    return store;
  };
  const answer = async (line: string): Promise<HookAnswer> => {
    const request = JSON.parse(line) as Request;
    if (request.vault !== options.vaultRoot) return { fallback: "another vault" };
    const args = simpleArgs(hookArgs, request.argv) as HookArgs | undefined;
    if (args === undefined) return { fallback: "flags this side does not parse" };
    // The client found the vault (flag, environment or default) and this socket in it.
    const hook = hookOptions({ ...args, vault: request.vault } as HookArgs, request.env);
    if (hook.vaultRoot !== options.vaultRoot) return { fallback: "another vault" };
    if (hook.state !== options.state) return { fallback: "another store" };
    const stderr: string[] = [];
    try {
      const { runHook } = await import("../hook/index.ts");
      await options.catchUp?.();
      const shared = { engine: await options.engine(), store: await sharedStore() };
      const result = await runHook(request.stdin, { ...hook, shared, warn: (l) => stderr.push(l) });
      return { stdout: result.stdout, stderr };
    } catch (err) {
      return { stdout: "", stderr: [...stderr, `lorecards hook: ${describeError(err)}`] };
    }
  };
  const server = Bun.listen<{ text: string }>({
    unix: socket,
    socket: {
      open(s) {
        s.data = { text: "" };
      },
      data(s, chunk) {
        s.data.text += Buffer.from(chunk).toString("utf8");
        const end = s.data.text.indexOf("\n");
        if (end === -1) return;
        const line = s.data.text.slice(0, end);
        s.data.text = "";
        void answer(line)
          .catch((err): HookAnswer => ({ fallback: describeError(err) }))
          .then((a) => {
            s.write(`${JSON.stringify(a)}\n`);
            s.end();
          });
      },
    },
  });
  let listening: Stats;
  try {
    chmodSync(socket, 0o600);
    listening = statSync(socket);
  } catch (err) {
    // The folder went away under it (a vault removed): a listener left open would keep the process.
    server.stop(true);
    throw err;
  }
  return {
    async close() {
      server.stop(true);
      // Only our own socket file: another server may have taken the path since.
      const now = statSync(socket, { throwIfNoEntry: false });
      if (now && now.ino === listening.ino && now.dev === listening.dev) rmSync(socket, { force: true });
      await (await store)?.close();
    },
  };
}

/**
 * The socket path is ours to listen on: its folder exists and is private, and no live server answers
 * there (a file left by one that died is removed).
 */
async function claim(socket: string, makeFolder: boolean): Promise<boolean> {
  const dir = path.dirname(socket);
  try {
    // The vault's state folder is made inside a vault that exists, never the vault itself.
    if (makeFolder && path.basename(dir) === STATE_DIR) mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  if (!existsSync(dir)) return false;
  if (!privateSocketFolder(socket, true)) return false;
  if (statSync(socket, { throwIfNoEntry: false }) === undefined) return true;
  if (await answers(socket)) return false;
  rmSync(socket, { force: true });
  return true;
}

/** Whether something listens on `socket` now. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    Bun.connect({
      unix: socket,
      socket: {
        open(s) {
          s.end();
          resolve(true);
        },
        data() {},
        error() {
          resolve(false);
        },
      },
    }).catch(() => resolve(false));
  });
}

/**
 * `serveHooks` for a server command: a failure to listen is one line on stderr, and the server goes
 * on without answering hooks (each then runs in a process of its own, as before).
 */
export async function startHookServer(options: HookServerOptions): Promise<HookServer | undefined> {
  try {
    return await serveHooks(options);
  } catch (err) {
    options.warn(`lorecards: hooks are not answered here (${describeError(err)}); each runs on its own`);
    return undefined;
  }
}
