/**
 * A backup's file name says what made it and when, in UTC: `daily-20250314T021500Z.tar.gz`. The time
 * is written so that names sort as times do, and it is read back from the name (not the file's mtime,
 * which a copy or a sync changes) to find the newest daily backup and the ones past the seventh.
 */

/** Who made a backup: `backup` (the command), `daily` (a server, rotated), `before-restore` (kept). */
export type BackupKind = "manual" | "daily" | "before-restore";

const PREFIX: Record<BackupKind, string> = {
  manual: "backup",
  daily: "daily",
  "before-restore": "before-restore",
};

export const ARCHIVE_EXT = ".tar.gz";

/** 1741918500000 → "20250314T021500Z". */
export function timeStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** The `n`th name for a backup made at `ms` (n > 1 when the first is taken within the same second). */
export function backupName(kind: BackupKind, ms: number, n = 1): string {
  return `${PREFIX[kind]}-${timeStamp(ms)}${n > 1 ? `-${n}` : ""}${ARCHIVE_EXT}`;
}

const NAME =
  /^(backup|daily|before-restore)-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(?:-(\d+))?\.tar\.gz$/;

/** What a backup's name says, or null for any other file. */
export function parseBackupName(name: string): { kind: BackupKind; at: number; n: number } | null {
  const m = NAME.exec(name);
  if (m === null) return null;
  const [, prefix, y, mo, d, h, mi, s, n] = m;
  const kind = (Object.keys(PREFIX) as BackupKind[]).find((k) => PREFIX[k] === prefix)!;
  const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return Number.isNaN(at) ? null : { kind, at, n: n === undefined ? 1 : Number(n) };
}
