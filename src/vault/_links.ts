/**
 * Symbolic links inside the vault are never followed (README "Symbolic links"). A vault shared through
 * git or a synced folder can carry a link to `/etc/passwd` or `~/.ssh/id_rsa`; read through, it would be
 * shown by the editor and injected into prompts, and a linked kind directory would take writes outside.
 * A link that stays inside the vault is refused too: where a link points can change between a check and
 * the read (a sync, a checkout), and only "no link at all" can be enforced at the moment of opening
 * (O_NOFOLLOW). The vault folder itself, and the path above it, may be links: the user chose them.
 */
import fs from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { isLinkRefusal, openPlain } from "../plain-file.ts";
import { ARCHIVE_DIR, relPath, STATE_DIR, type Vault } from "./paths.ts";

export interface VaultLink {
  /** The link, relative to the vault root, `/`-separated. */
  path: string;
  /** What it points to, as written in the link. */
  target: string;
}

function isLink(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** The first part of `abs` below the vault root that is a symbolic link (absolute), or null. */
export function linkBelow(vault: Vault, abs: string): string | null {
  const rel = path.relative(vault.root, abs);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return null;
  let at = vault.root;
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    if (isLink(at)) return at;
  }
  return null;
}

/**
 * `<root>/.lorecards/<parts…>`: lorecards' own state (the databases, the marker secret, the hit log,
 * the lock, backups). Refused (`forbidden`) when `.lorecards`, or any part below it, is a symbolic
 * link: state, the secret and backups are never read or written outside the vault, and SQLite would
 * follow a linked database file. Called where a path into the state folder is made, so every surface
 * meets the same rule.
 */
export function stateIn(root: string, ...parts: string[]): string {
  let at = path.join(root, STATE_DIR);
  const check = (p: string, rel: string) => {
    if (isLink(p))
      throw new LoreError(
        "forbidden",
        `${rel} is a symbolic link (to ${target(p)}); lorecards never follows links inside the vault`,
      );
  };
  check(at, STATE_DIR);
  let rel = STATE_DIR;
  for (const part of parts) {
    at = path.join(at, part);
    rel = `${rel}/${part}`;
    check(at, rel);
  }
  return at;
}

function target(link: string): string {
  try {
    return fs.readlinkSync(link);
  } catch {
    return "?";
  }
}

function refusal(vault: Vault, link: string): LoreError {
  return new LoreError(
    "forbidden",
    `${relPath(vault, link)} is a symbolic link (to ${target(link)}); lorecards never follows links inside the vault`,
  );
}

/** Throws `forbidden` when `abs`, or a folder between the vault root and it, is a symbolic link. */
export function refuseLinks(vault: Vault, abs: string): void {
  const link = linkBelow(vault, abs);
  if (link !== null) throw refusal(vault, link);
}

/**
 * Open a card file for reading, never through a link, and only a plain file of its own (not a FIFO,
 * a device, a folder or a hard link: src/plain-file.ts): its folders are checked (unless the caller
 * just did), and the file itself is opened with O_NOFOLLOW. ENOENT is passed on.
 */
export function openNoFollow(vault: Vault, file: string, checkFolders = true): number {
  if (checkFolders) refuseLinks(vault, path.dirname(file));
  try {
    return openPlain(file, { name: relPath(vault, file) });
  } catch (err) {
    throw isLinkRefusal(err) ? refusal(vault, file) : err;
  }
}

/** The text of a card file, never read through a link (see openNoFollow). */
export function readNoFollow(vault: Vault, file: string, checkFolders = true): string {
  const fd = openNoFollow(vault, file, checkFolders);
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** The `*.md` links in a folder (not followed), plus the folder itself when it is one. */
function linksIn(vault: Vault, dir: string, out: VaultLink[]): void {
  if (dir !== vault.root && isLink(dir)) {
    out.push({ path: relPath(vault, dir), target: target(dir) });
    return;
  }
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of entries) {
    if (!d.isSymbolicLink() || !d.name.endsWith(".md")) continue;
    const abs = path.join(dir, d.name);
    out.push({ path: relPath(vault, abs), target: target(abs) });
  }
}

/** Every link where cards live (kind folders, the archive and its folders), for `check`. */
export function findLinks(vault: Vault): VaultLink[] {
  const out: VaultLink[] = [];
  for (const kind of vault.kinds.kinds) linksIn(vault, path.join(vault.root, kind.dir), out);
  const archive = path.join(vault.root, ARCHIVE_DIR);
  if (isLink(archive)) out.push({ path: ARCHIVE_DIR, target: target(archive) });
  else for (const kind of vault.kinds.kinds) linksIn(vault, path.join(archive, kind.dir), out);
  return out;
}
