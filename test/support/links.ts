/**
 * A vault with symbolic links in it, as a vault shared through git or a synced folder can arrive: a card
 * file linking to a secret outside, a kind directory linking outside, the archive folder linking
 * outside, and a card linking to another card inside. Every card reachable only through a link carries
 * SECRET and fires on "zanzibar", so a test can see at once whether anything was read through one.
 */
import fs from "node:fs";
import path from "node:path";
import { makeVault, removeDir, tempDir } from "./vault.ts";

export const SECRET = "TOP-SECRET-7731";
export const SECRET_CARD = `---\nkeywords: [zanzibar]\n---\n## who\n${SECRET} (zanzibar)\n`;

export interface LinkedVault {
  root: string;
  /** A folder beside the vault that the links point into. */
  outside: string;
  /** Every file under `outside` with its text: equal snapshots mean nothing was written there. */
  outsideFiles(): Record<string, string>;
  remove(): void;
}

/** The links made, relative to the vault, with their targets (absolute, or relative for `inside`). */
export function linkTable(v: { root: string; outside: string }) {
  return [
    { path: "people/passwd.md", target: path.join(v.outside, "secret.md") },
    { path: "slang", target: path.join(v.outside, "slang") },
    { path: "_archive", target: path.join(v.outside, "archive") },
    { path: "people/Ally.md", target: "Alice.md" },
  ];
}

export function linkedVault(): LinkedVault {
  const root = makeVault();
  const outside = tempDir();
  fs.writeFileSync(path.join(outside, "secret.md"), SECRET_CARD);
  fs.mkdirSync(path.join(outside, "slang"));
  fs.writeFileSync(path.join(outside, "slang", "zanzibar.md"), SECRET_CARD);
  fs.mkdirSync(path.join(outside, "archive", "people"), { recursive: true });
  fs.writeFileSync(path.join(outside, "archive", "people", "zanzibar.md"), SECRET_CARD);
  fs.rmSync(path.join(root, "slang"), { recursive: true });
  for (const link of linkTable({ root, outside })) fs.symlinkSync(link.target, path.join(root, link.path));
  return {
    root,
    outside,
    outsideFiles: () => snapshot(outside),
    remove: () => {
      removeDir(root);
      removeDir(outside);
    },
  };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const abs = path.join(dir, name);
    out[name] = fs.statSync(abs).isDirectory() ? "/" : fs.readFileSync(abs, "utf8");
  }
  return out;
}
