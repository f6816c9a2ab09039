/**
 * The persisted index (docs/ARCHITECTURE.md, "A cold process must not re-read the vault"): CardMeta
 * per file, keyed by path, with the mtime (ns) and size it was parsed at, stored in
 * `<vault>/.lorecards/index.json`. A load stats every card file and re-parses only those whose mtime or
 * size changed; a missing, corrupt or outdated index file is rebuilt. Known limit (README "Known
 * limits"): an edit that keeps both mtime and size identical is not noticed.
 */
import fs from "node:fs";
import path from "node:path";
import { cardMeta, keyProblem, parseCard } from "../card/index.ts";
import type { BrokenCard, CardMeta, KindDef } from "../card/types.ts";
import { atomicWrite } from "./_fs.ts";
import { IndexTable, type ParsedEntry } from "./_index-file.ts";
import { linkBelow, readNoFollow } from "./_links.ts";
import { settleImports } from "./_settle.ts";
import { removeStaleTemps } from "./_temps.ts";
import { kindDir, STATE_DIR, type Vault } from "./paths.ts";

export interface VaultIndex {
  /** Every parsed card (enabled or not): kinds in table order, then file names in code-unit order. */
  cards: CardMeta[];
  /** Files that could not be parsed, with the error. */
  broken: BrokenCard[];
  /** Cards that parsed with frontmatter values falling back to defaults. */
  warnings: { path: string; warnings: string[] }[];
  /** Changes whenever any card file (or the kind table) changes. */
  stamp: string;
  /** How many files this load had to parse (0 on a warm, unchanged vault). */
  parsed: number;
  /** The cache itself, by relative path (rows decoded on demand); hand the index back as `previous`. */
  entries: IndexTable;
}

export interface LoadIndexOptions {
  /** A previous result: used as the cache instead of reading index.json again. */
  previous?: VaultIndex;
  /** Write index.json back when something changed (default true). */
  persist?: boolean;
}

interface CardFile {
  rel: string;
  abs: string;
  kind: KindDef;
  key: string;
}

export function indexPath(vault: Vault): string {
  return path.join(vault.root, STATE_DIR, "index.json");
}

/** The `*.md` names in a kind directory (no dotfiles), sorted by code unit; none if it is missing. */
function cardFileNames(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith(".md") && n.charCodeAt(0) !== 46).sort();
}

function kindsSignature(vault: Vault): string {
  return JSON.stringify(vault.kinds);
}

function readIndexFile(vault: Vault): IndexTable | null {
  let text: string;
  try {
    text = fs.readFileSync(indexPath(vault), "utf8");
  } catch {
    return null;
  }
  return IndexTable.decode(text, kindsSignature(vault), vault.kinds);
}

function parseEntry(vault: Vault, file: CardFile, mtime: string, size: number): ParsedEntry {
  const base = { path: file.rel, kind: file.kind.name, key: file.key };
  try {
    const problem = keyProblem(file.key);
    if (problem !== null) throw new Error(`the file name is not a legal card name: ${problem}`);
    const text = readNoFollow(vault, file.abs, false);
    const card = parseCard(text, { ...base, kinds: vault.kinds, mtime, size });
    const entry: ParsedEntry = { mtime, size, meta: cardMeta(card) };
    if (card.warnings.length > 0) entry.warnings = card.warnings;
    return entry;
  } catch (err) {
    // The path is reported beside the error; do not repeat it inside the message.
    const message = err instanceof Error ? err.message : String(err);
    const error = message.startsWith(`${file.rel}: `) ? message.slice(file.rel.length + 2) : message;
    return { mtime, size, broken: { ...base, error } };
  }
}

function persist(vault: Vault, entries: IndexTable): void {
  try {
    // Not recursive: a vault moved away while open must not come back as an empty folder.
    if (!fs.existsSync(path.join(vault.root, STATE_DIR))) fs.mkdirSync(path.join(vault.root, STATE_DIR));
    removeStaleTemps(path.join(vault.root, STATE_DIR));
    atomicWrite(indexPath(vault), entries.encode(kindsSignature(vault)));
  } catch {
    // The index is a cache: a read-only vault still works, it just re-parses next time.
  }
}

/** Load every card's metadata, re-parsing only what changed since the last load. */
export function loadIndex(vault: Vault, opts: LoadIndexOptions = {}): VaultIndex {
  settleImports(vault); // never a half-imported book (_settle.ts)
  const cached = opts.previous?.entries ?? readIndexFile(vault);
  const old = cached ?? new IndexTable(vault.kinds);
  const present: string[] = [];
  const fresh = new Map<string, ParsedEntry>();
  const stampParts: string[] = [kindsSignature(vault)];
  // The hot loop of every cold start (one pass per card file, run by a cold engine): kept lean.
  // lstat, not stat: a card file that is a symbolic link is skipped, as is a kind folder that is one.
  for (const kind of vault.kinds.kinds) {
    if (linkBelow(vault, kindDir(vault, kind)) !== null) continue;
    const dir = kindDir(vault, kind) + path.sep;
    const prefix = kind.dir === "" ? "" : `${kind.dir}/`;
    for (const name of cardFileNames(dir)) {
      const st = fs.lstatSync(dir + name, { bigint: true, throwIfNoEntry: false });
      if (st === undefined || !st.isFile()) continue; // gone since the listing, a folder named *.md, a link
      const rel = prefix + name;
      const mtime = `${st.mtimeNs}`;
      const size = Number(st.size);
      if (!old.isCurrent(rel, mtime, size)) {
        const file = { rel, abs: dir + name, kind, key: name.slice(0, -3) };
        fresh.set(rel, parseEntry(vault, file, mtime, size));
      }
      present.push(rel);
      stampParts.push(`${rel}\0${mtime}\0${size}`);
    }
  }
  const stamp = new Bun.CryptoHasher("sha1").update(stampParts.join("\0")).digest("hex");
  const unchanged = cached !== null && fresh.size === 0 && present.length === old.size;
  // Warm path: nothing changed, so the previous table can be handed back as it is.
  if (unchanged) return summarize(old, stamp, 0);
  const entries = new IndexTable(vault.kinds);
  for (const rel of present) {
    const parsed = fresh.get(rel);
    if (parsed) entries.add(rel, parsed);
    else entries.copyFrom(old, rel);
  }
  if (opts.persist !== false) persist(vault, entries);
  return summarize(entries, stamp, fresh.size);
}

/**
 * The lists are built on first access: a caller that looks up a few entries by path (the hook, the
 * gateway) never walks every row.
 */
function summarize(entries: IndexTable, stamp: string, parsed: number): VaultIndex {
  let cards: CardMeta[] | undefined;
  let broken: BrokenCard[] | undefined;
  let warnings: VaultIndex["warnings"] | undefined;
  return {
    get cards() {
      cards ??= [...entries.paths()].flatMap((rel) => entries.meta(rel) ?? []);
      return cards;
    },
    get broken() {
      broken ??= [...entries.paths()].flatMap((rel) => entries.broken(rel) ?? []);
      return broken;
    },
    get warnings() {
      warnings ??= [...entries.paths()].flatMap((rel) => {
        const w = entries.warnings(rel);
        return w ? [{ path: rel, warnings: w }] : [];
      });
      return warnings;
    },
    stamp,
    parsed,
    entries,
  };
}
