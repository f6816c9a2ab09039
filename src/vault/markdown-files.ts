/**
 * Every Markdown file of a vault at any depth, as vault paths, in the folders the vault reads its cards
 * from (a kind's folder and those below it, a notes app's own `Characters/` too): not a hidden folder,
 * lorecards' own (`.lorecards/`, the archive) or the books at its root, and never through a link. One
 * walk, lazily: `init` asks whether there is any (the first answers it), a backup takes them all.
 */
import fs from "node:fs";
import path from "node:path";
import { skippedFolder } from "../card/index.ts";

export function* markdownFiles(root: string, rel = ""): Generator<string> {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return; // gone, or not readable: nothing in it is read as a card either
  }
  for (const e of entries) {
    const child = rel === "" ? e.name : `${rel}/${e.name}`;
    // A Dirent of a link is neither a file nor a folder: links are never followed.
    if (e.isDirectory()) {
      if (skippedFolder(e.name, rel === "") === null) yield* markdownFiles(root, child);
    } else if (e.isFile() && e.name.endsWith(".md") && !e.name.startsWith(".")) yield child;
  }
}
