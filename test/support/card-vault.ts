// A temporary vault on disk with cards written as real files, for tests of anything that reads one.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

export interface TempVault {
  root: string;
  /** Write `rel` (e.g. "people/Alice.md") with the given text. */
  write(rel: string, text: string): string;
  remove(): void;
}

export function tempVault(files: Record<string, string> = {}): TempVault {
  const root = mkdtempSync(join(tmpdir(), "lc-vault-"));
  for (const d of ["people", "events", "places", "things", "slang"]) mkdirSync(join(root, d));
  const vault: TempVault = {
    root,
    write(rel, text) {
      const abs = join(root, rel);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, text);
      return abs;
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const [rel, text] of Object.entries(files)) vault.write(rel, text);
  return vault;
}

/** A card file from frontmatter lines and a body. */
export function cardText(frontmatter: string, body: string): string {
  return `---\n${frontmatter.trim()}\n---\n${body}`;
}

/**
 * Every file under a vault except our own state directory (`.lorecards/`), with its bytes as latin1
 * text: two snapshots are equal exactly when no card file was created, changed or removed.
 */
export function vaultFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".lorecards") walk(p);
      } else out[relative(root, p)] = readFileSync(p, "latin1");
    }
  };
  walk(root);
  return out;
}

/**
 * Move the modification time of every file and folder under `root` (our state folder aside) `ms` into
 * the past, as if the vault had been edited long ago: an index check then treats them as settled
 * rather than as changed within the same clock tick (src/vault/catalog.ts, RACY_MS). The state folder
 * is made first if it is missing: making it later would move the root's mtime back into the racy
 * window, and what the next load does would depend on how fast the machine is.
 */
export function backdate(root: string, ms = 10_000): void {
  mkdirSync(join(root, ".lorecards"), { recursive: true });
  const then = new Date(Date.now() - ms);
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === ".lorecards") continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      utimesSync(p, then, then);
    }
  };
  walk(root);
  utimesSync(root, then, then);
}
