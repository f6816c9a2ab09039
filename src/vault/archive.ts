/**
 * "Delete" moves a card to `<vault>/_archive/<dir>/`; nothing is ever removed. When the archive
 * already holds that name, the card is archived as `key~2`, `key~3`, … and restoring strips the suffix.
 * Both are versions in the card's history (history.ts), under its live name: an archive's text after
 * is none, a restore's text before is none.
 */
import fs from "node:fs";
import path from "node:path";
import { kindByName, parseCard, validateKey } from "../card/index.ts";
import type { Card, KindDef } from "../card/types.ts";
import { describeError, LoreError } from "../errors.ts";
import { fsyncDir, statExact } from "./_fs.ts";
import { linkBelow, readNoFollow, refuseLinks } from "./_links.ts";
import { withSettledLock } from "./_settle.ts";
import { readCard } from "./cards.ts";
import { recordOwnWrite } from "./catalog.ts";
import { type HistoryOptions, recordChanges } from "./history.ts";
import type { LockOptions } from "./lock.ts";
import { archiveDir, cardPath, relPath, type Vault } from "./paths.ts";

export interface ArchivedCard {
  kind: string;
  /** The name in the archive (may carry a `~n` suffix). */
  key: string;
  /** The key it gets back when restored. */
  originalKey: string;
  path: string;
  mtime: string;
}

const SUFFIX = /~\d+$/;

function moveFile(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.renameSync(from, to);
  } catch (err) {
    throw new LoreError("io_error", `cannot move ${from}: ${describeError(err)}`, { cause: err });
  }
  fsyncDir(path.dirname(from));
  fsyncDir(path.dirname(to));
}

/** The card's text for its history; an unreadable file is still archived (its text then is unknown). */
function readableText(vault: Vault, file: string): string | null {
  try {
    return readNoFollow(vault, file);
  } catch {
    return null;
  }
}

/** Where the archive puts `key` of this kind: `key.md`, or `key~2.md`, `key~3.md`, … when that is taken. */
export function archiveTarget(vault: Vault, def: KindDef, key: string): string {
  const dir = archiveDir(vault, def);
  let name = key;
  for (let n = 2; fs.existsSync(path.join(dir, `${name}.md`)); n++) name = `${key}~${n}`;
  return path.join(dir, `${name}.md`);
}

/** Move a live card into the archive; LoreError not_found. */
export function archiveCard(
  vault: Vault,
  kind: string,
  key: string,
  opts: LockOptions & HistoryOptions = {},
): Promise<ArchivedCard> {
  const def = kindByName(vault.kinds, kind);
  const from = cardPath(vault, kind, key);
  const dir = archiveDir(vault, def);
  return withSettledLock(
    vault,
    () => {
      refuseLinks(vault, from);
      refuseLinks(vault, dir);
      if (!fs.existsSync(from)) throw new LoreError("not_found", `no ${def.name} card named "${key}"`);
      const to = archiveTarget(vault, def, key);
      const name = path.basename(to, ".md");
      const text = readableText(vault, from);
      recordOwnWrite(vault, from, () => moveFile(from, to));
      recordChanges(vault, opts.writer ?? "cli", [
        { kind: def.name, key, action: "archive", before: text, after: null },
      ]);
      return {
        kind: def.name,
        key: name,
        originalKey: key,
        path: relPath(vault, to),
        mtime: statExact(to)!.mtime,
      };
    },
    opts,
  );
}

/**
 * Bring an archived card back (as `opts.as`, or its original key); LoreError conflict if that name is
 * live, parse_error (and the card stays archived) if it would not read back.
 */
export function restoreCard(
  vault: Vault,
  kind: string,
  archivedKey: string,
  opts: LockOptions & HistoryOptions & { as?: string } = {},
): Promise<Card> {
  const def = kindByName(vault.kinds, kind);
  validateKey(archivedKey);
  const from = path.join(archiveDir(vault, def), `${archivedKey}.md`);
  const key = opts.as ?? archivedKey.replace(SUFFIX, "");
  const to = cardPath(vault, kind, key);
  return withSettledLock(
    vault,
    () => {
      refuseLinks(vault, from);
      refuseLinks(vault, to);
      if (!fs.existsSync(from))
        throw new LoreError("not_found", `no archived ${def.name} card "${archivedKey}"`);
      if (fs.existsSync(to)) throw new LoreError("conflict", `a live ${def.name} card named "${key}" exists`);
      // A card that would come back unreadable stays archived: check first, then move.
      const text = readNoFollow(vault, from);
      parseCard(text, { kind: def.name, key, kinds: vault.kinds, path: relPath(vault, to) });
      recordOwnWrite(vault, to, () => moveFile(from, to));
      recordChanges(vault, opts.writer ?? "cli", [
        { kind: def.name, key, action: "restore", before: null, after: text },
      ]);
      return readCard(vault, kind, key);
    },
    opts,
  );
}

/** Every archived card, kinds in table order, names sorted. */
export function listArchived(vault: Vault): ArchivedCard[] {
  const out: ArchivedCard[] = [];
  for (const def of vault.kinds.kinds) {
    const dir = archiveDir(vault, def);
    if (linkBelow(vault, dir) !== null) continue;
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of names.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!d.isFile() || !d.name.endsWith(".md") || d.name.startsWith(".")) continue;
      const key = d.name.slice(0, -3);
      const file = path.join(dir, d.name);
      const st = statExact(file);
      if (!st) continue;
      out.push({
        kind: def.name,
        key,
        originalKey: key.replace(SUFFIX, ""),
        path: relPath(vault, file),
        mtime: st.mtime,
      });
    }
  }
  return out;
}
