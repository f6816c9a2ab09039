/**
 * The manifest at the top of every backup (`manifest.json`): which lorecards wrote it and when, and
 * each file's vault path, size, SHA-256, mode and modification time. A restore believes nothing the
 * manifest does not vouch for: every file it names must be in the archive with that size and hash,
 * and the archive may hold nothing else. The files sit under `vault/` beside it, so unpacking a backup
 * by hand (`tar xzf`) gives a folder that is the vault.
 */
import { LoreError } from "../errors.ts";
import { allowedPath } from "./_contents.ts";
import type { BackupKind } from "./_names.ts";

export const MANIFEST_NAME = "manifest.json";
export const FILES_PREFIX = "vault/";
export const FORMAT = "lorecards-backup";
/** Raised only when a restore could not read what the old one wrote. */
export const FORMAT_VERSION = 1;

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
  /** Permission bits (`marker-secret` is 0600). */
  mode: number;
  /** Modification time, ms since the epoch. */
  mtime: number;
}

export interface Manifest {
  format: typeof FORMAT;
  version: typeof FORMAT_VERSION;
  lorecards: string;
  kind: BackupKind;
  /** ISO 8601, UTC. */
  created: string;
  /** The vault it was made from (for the reader; a restore goes where it is told). */
  vault: string;
  /**
   * Whether state.db in it holds the recall events (`backup --with-recalls`). Absent in a backup
   * written before the choice existed, which held them: read as true.
   */
  recalls: boolean;
  files: ManifestFile[];
}

/** How many files' lines go in one piece of `manifestPieces`. */
const LINES_A_PIECE = 1000;

/**
 * The manifest as JSON text, a piece at a time: its fields one to a line, then each file's entry on a
 * line of its own, a thousand lines to a piece. A 100,000-card vault's manifest comes to some 15 MB;
 * made as one string (by a builder that doubled as it grew) it was the highest point of a forced
 * restore's memory. The writer goes through the pieces twice, once for their size (a tar header
 * comes first) and once to write them, and holds one at a time.
 */
export function* manifestPieces(manifest: Manifest): Generator<string> {
  const { files, ...about } = manifest;
  const head = JSON.stringify(about, null, 2); // "{\n  ...\n}"
  yield `${head.slice(0, -2)},\n  "files": [`;
  for (let i = 0; i < files.length; i += LINES_A_PIECE) {
    const lines = files.slice(i, i + LINES_A_PIECE).map((f) => `\n    ${JSON.stringify(f)}`);
    yield (i === 0 ? "" : ",") + lines.join(",");
  }
  yield files.length === 0 ? "]\n}\n" : "\n  ]\n}\n";
}

export function sha256(bytes: Uint8Array): string {
  return Bun.CryptoHasher.hash("sha256", bytes, "hex");
}

/** A refusal of an archive: damaged, or not a lorecards backup. Nothing has been written. */
export function refusal(file: string, why: string, cause?: unknown): LoreError {
  return new LoreError(
    "parse_error",
    `${file} is not a lorecards backup, or it is damaged: ${why}; nothing was restored`,
    cause === undefined ? undefined : { cause },
  );
}

const KINDS = new Set<BackupKind>(["manual", "daily", "before-restore"]);

function fileEntry(v: unknown): ManifestFile | null {
  if (typeof v !== "object" || v === null) return null;
  const f = v as Record<string, unknown>;
  const whole = (x: unknown) => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
  if (typeof f.path !== "string" || !allowedPath(f.path)) return null;
  if (!whole(f.size) || !whole(f.mode) || !whole(f.mtime)) return null;
  if (typeof f.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(f.sha256)) return null;
  return {
    path: f.path,
    size: f.size as number,
    sha256: f.sha256,
    mode: f.mode as number,
    mtime: f.mtime as number,
  };
}

/** Read a manifest; throws the refusal of `file` naming what is wrong with it. */
export function parseManifest(text: string, file: string): Manifest {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw refusal(file, `${MANIFEST_NAME} is not JSON`, err);
  }
  if (typeof raw !== "object" || raw === null || raw.format !== FORMAT) {
    throw refusal(file, `${MANIFEST_NAME} does not say "format": "${FORMAT}"`);
  }
  if (typeof raw.version !== "number" || raw.version > FORMAT_VERSION) {
    throw new LoreError(
      "parse_error",
      `${file} was written by a newer lorecards (backup format ${String(raw.version)}, this one reads ` +
        `${FORMAT_VERSION}); nothing was restored`,
    );
  }
  if (!Array.isArray(raw.files)) throw refusal(file, `${MANIFEST_NAME} has no file list`);
  const files: ManifestFile[] = [];
  const seen = new Set<string>();
  for (const v of raw.files) {
    const f = fileEntry(v);
    if (f === null) throw refusal(file, `${MANIFEST_NAME} lists a file it may not: ${JSON.stringify(v)}`);
    if (seen.has(f.path)) throw refusal(file, `${MANIFEST_NAME} lists ${f.path} twice`);
    seen.add(f.path);
    files.push(f);
  }
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (seen.has(folder)) throw refusal(file, `${MANIFEST_NAME} lists ${folder} as a file and a folder`);
    }
  }
  return {
    format: FORMAT,
    version: FORMAT_VERSION,
    lorecards: String(raw.lorecards ?? "?"),
    kind: KINDS.has(raw.kind as BackupKind) ? (raw.kind as BackupKind) : "manual",
    created: String(raw.created ?? "?"),
    vault: String(raw.vault ?? "?"),
    recalls: raw.recalls !== false,
    files,
  };
}
