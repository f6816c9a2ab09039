import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { STATE_DIR } from "../state-dir.ts";
import { parseYamlDocument } from "./_frontmatter.ts";
import { keyProblem } from "./key.ts";
import { inSkippedDir, noteAppFolders } from "./note-apps.ts";
import type { KindDef, KindsConfig } from "./types.ts";

export const KINDS_FILE = "kinds.yaml";
/** The vault's folder of archived cards. */
export const ARCHIVE_DIR = "_archive";

export { STATE_DIR };
/**
 * The vault's folder of books (vault/books.ts): each folder below it is a book, a vault of its own; the
 * vault's own cards never live there.
 */
export const BOOKS_DIR = "books";
/** Directories the vault keeps for itself; no kind may live there. */
export const RESERVED_DIRS = [ARCHIVE_DIR, STATE_DIR, BOOKS_DIR];

export function defaultKinds(): KindsConfig {
  return {
    kinds: [
      {
        name: "people",
        dir: "people",
        sections: ["who", "stance", "recent", "impression"],
        recent: "recent",
      },
      { name: "event", dir: "events", sections: ["when", "who", "what", "stance", "followup"] },
      { name: "place", dir: "places", sections: ["where", "relation", "recent"], recent: "recent" },
      { name: "thing", dir: "things", sections: ["what", "usage", "recent"], recent: "recent" },
      { name: "slang", dir: "slang", sections: ["meaning", "origin", "usage"] },
      { name: "entry", dir: "", sections: [] },
    ],
    privateSections: ["correspondence"],
  };
}

/** Other spellings people use for kind names. */
const KIND_ALIASES: Record<string, string> = { person: "people", events: "event", entries: "entry" };

/** The kind called `name` (or by its directory, or a common alias), case-insensitive; undefined if none. */
export function findKind(config: KindsConfig, name: string): KindDef | undefined {
  const n = name.trim().toLowerCase();
  const target = KIND_ALIASES[n] ?? n;
  return (
    config.kinds.find((k) => k.name.toLowerCase() === target) ??
    config.kinds.find((k) => k.dir !== "" && k.dir.toLowerCase() === n)
  );
}

/** Like findKind, but an unknown name is a LoreError unknown_kind. */
export function kindByName(config: KindsConfig, name: string): KindDef {
  const kind = findKind(config, name);
  if (!kind) {
    const known = config.kinds.map((k) => k.name).join(", ");
    throw new LoreError("unknown_kind", `unknown kind "${name}" (known: ${known})`);
  }
  return kind;
}

/**
 * Why the vault never looks for cards in a folder called `name`, or null when it does: its own folders
 * (RESERVED_DIRS) and hidden ones (`.obsidian`, `.git`, `.trash`: an editor's or a tool's, not notes).
 */
export function skippedFolder(name: string, atRoot = false): string | null {
  if (atRoot && name === BOOKS_DIR) return "the vault's books, each a vault of its own (docs/BOOKS.md)";
  if (name === STATE_DIR) return "lorecards' own state (index, conversations, backups)";
  if (name === ARCHIVE_DIR) return "archived cards (lorecards restore brings one back)";
  if (name.startsWith(".")) return "a hidden folder";
  return null;
}

/**
 * The kind that owns the vault-relative folder `dir` ("" = the root), at any depth: a kind's folder and
 * every folder below it belong to that kind; any other folder below the root belongs to the root's
 * kind (`entry`). Undefined when a folder on the way is skipped (skippedFolder) or no kind owns it.
 */
export function kindOfFolder(config: KindsConfig, dir: string): KindDef | undefined {
  if (dir !== "" && dir.split("/").some((name, i) => skippedFolder(name, i === 0) !== null)) return undefined;
  if (dir !== "" && inSkippedDir(config.skipped, dir)) return undefined;
  let owner: KindDef | undefined;
  for (const k of config.kinds) {
    if (k.dir === "" || !(dir === k.dir || dir.startsWith(`${k.dir}/`))) continue;
    if (owner === undefined || k.dir.length > owner.dir.length) owner = k;
  }
  return owner ?? config.kinds.find((k) => k.dir === "");
}

/**
 * The card a vault-relative path holds: its kind and its key (the path below the kind's folder without
 * `.md`, so `people/family/Rin.md` is the people card `family/Rin`); undefined for anything that is no
 * card file (another extension, a hidden file, a skipped folder).
 */
export function cardAt(config: KindsConfig, rel: string): { kind: KindDef; key: string } | undefined {
  const slash = rel.lastIndexOf("/");
  const name = rel.slice(slash + 1);
  if (!name.endsWith(".md") || name.startsWith(".")) return undefined;
  const kind = kindOfFolder(config, slash === -1 ? "" : rel.slice(0, slash));
  if (kind === undefined) return undefined;
  return { kind, key: rel.slice(kind.dir === "" ? 0 : kind.dir.length + 1, -3) };
}

/** The kind whose directory is `dir` ("" = vault root), or undefined. */
export function kindForDir(config: KindsConfig, dir: string): KindDef | undefined {
  return config.kinds.find((k) => k.dir === dir);
}

/** True when `heading` names a private section of this config (case-insensitive). */
export function isPrivateSection(config: KindsConfig, heading: string): boolean {
  const h = heading.trim().toLowerCase();
  return config.privateSections.some((p) => p.trim().toLowerCase() === h);
}

function bad(message: string): never {
  throw new LoreError("parse_error", `${KINDS_FILE}: ${message}`);
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) bad(`${field} must be a mapping of kind: value`);
  return value as Record<string, unknown>;
}

function words(value: unknown, field: string): string[] {
  const list = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(list) || list.some((w) => typeof w !== "string" && typeof w !== "number")) {
    bad(`${field} must be a list of names`);
  }
  return (list as unknown[]).map((w) => String(w).trim()).filter((w) => w !== "");
}

const SETTINGS = ["dirs", "sections", "recent_section", "private_sections"];

/**
 * Merge a kinds.yaml text over the defaults. Throws LoreError parse_error with a clear message when a
 * setting it knows is malformed; a setting it does not know is ignored and named in `warnings`.
 */
export function parseKindsConfig(text: string): KindsConfig {
  let data: unknown;
  try {
    data = parseYamlDocument(text).toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new LoreError("parse_error", `${KINDS_FILE}: ${describeError(err)}`, { cause: err });
  }
  const root = record(data, "the file");
  const config: KindsConfig = defaultKinds();
  // An unknown setting (the Python original's `generic_keywords`, a typo) must not stop the vault.
  const unknown = Object.keys(root).filter((key) => !SETTINGS.includes(key));
  if (unknown.length > 0) {
    config.warnings = unknown.map((key) => `${KINDS_FILE}: unknown setting "${key}" is ignored`);
  }
  const ensure = (name: string): KindDef => {
    const found = config.kinds.find((k) => k.name === name);
    if (found) return found;
    if (!/^[\p{L}\p{N}_-]+$/u.test(name)) bad(`"${name}" is not a usable kind name`);
    const added: KindDef = { name, dir: name, sections: [] };
    config.kinds.splice(config.kinds.length - 1, 0, added);
    return added;
  };
  for (const [name, dir] of Object.entries(record(root.dirs, "dirs"))) {
    if (name === "entry") bad("the entry kind always lives in the vault root");
    if (typeof dir !== "string" || keyProblem(dir) !== null || RESERVED_DIRS.includes(dir)) {
      bad(`dirs.${name}: ${JSON.stringify(dir)} is not a usable directory name`);
    }
    ensure(name).dir = dir;
  }
  for (const [name, list] of Object.entries(record(root.sections, "sections"))) {
    ensure(name).sections = words(list, `sections.${name}`);
  }
  for (const [name, heading] of Object.entries(record(root.recent_section, "recent_section"))) {
    if (heading !== null && typeof heading !== "string") bad(`recent_section.${name} must be a heading`);
    ensure(name).recent = heading === null || heading.trim() === "" ? undefined : heading.trim();
  }
  if (root.private_sections !== undefined) {
    config.privateSections = words(root.private_sections ?? [], "private_sections");
  }
  const dirs = config.kinds.map((k) => k.dir.toLowerCase());
  const dup = dirs.find((d, i) => dirs.indexOf(d) !== i);
  if (dup !== undefined) bad(`two kinds share the directory "${dup}"`);
  return config;
}

/**
 * The vault's kinds: defaults merged with `<root>/kinds.yaml` when it exists, and the folders a note
 * app keeps for itself (card/note-apps.ts), which hold no cards.
 */
export function loadKindsConfig(root: string): KindsConfig {
  const config = kindsFile(root);
  const skipped = noteAppFolders(root);
  return skipped.length > 0 ? { ...config, skipped } : config;
}

function kindsFile(root: string): KindsConfig {
  let text: string;
  try {
    text = readPlain(path.join(root, KINDS_FILE), { name: KINDS_FILE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return defaultKinds();
    if (err instanceof LoreError) throw err;
    throw new LoreError("io_error", `cannot read ${KINDS_FILE}: ${describeError(err)}`, { cause: err });
  }
  return parseKindsConfig(text);
}
