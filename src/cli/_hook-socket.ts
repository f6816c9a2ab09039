/**
 * Where a running gateway or editor answers hooks for its vault (cli/_hook-server.ts) and where the
 * hook asks first (cli/hook-client.ts): a Unix socket in the vault's state folder, whose mode (0700)
 * keeps other users out. A path too long for a socket (about 100 bytes) goes to a folder of this
 * user's own in the temp folder instead, used only when it is theirs alone. Not on Windows, whose
 * hooks run as before.
 */
import { lstatSync, mkdirSync } from "node:fs";
import path from "node:path";
import { STATE_DIR } from "../state-dir.ts";

/** Socket paths are limited to 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH = 100;

export function hookSocketPath(
  vaultRoot: string,
  env: Record<string, string | undefined>,
): string | undefined {
  if (process.platform === "win32") return undefined;
  const inVault = path.join(vaultRoot, STATE_DIR, "hook.sock");
  if (Buffer.byteLength(inVault) <= MAX_SOCKET_PATH) return inVault;
  const dir = path.join(env.TMPDIR || "/tmp", `lorecards-${process.getuid?.() ?? 0}`);
  const file = path.join(dir, `${Bun.hash(vaultRoot).toString(36)}.sock`);
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH ? file : undefined;
}

/**
 * True when the socket's folder is this user's alone (for the temp folder: made so when `make`), so
 * that an answer read from it cannot be another user's text put into the prompt.
 */
export function privateSocketFolder(socket: string, make: boolean): boolean {
  const dir = path.dirname(socket);
  if (path.basename(dir) === STATE_DIR) return true; // the vault's own, made 0700 by the stores
  if (make) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const s = lstatSync(dir, { throwIfNoEntry: false });
  const uid = process.getuid?.();
  return s?.isDirectory() === true && (uid === undefined || s.uid === uid) && (s.mode & 0o077) === 0;
}
