// A temporary vault on disk with cards written as real files, for tests of anything that reads one.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

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
