/**
 * backup/ owns backups of a vault: `writeBackup` packs the card files, kinds.yaml, settings.yaml and
 * the state databases (copied through SQLite) with a manifest of sizes and SHA-256s into a `.tar.gz`;
 * `restoreBackup` checks one whole and puts it in place, all or nothing; `createDailyBackups` is the
 * once-a-day backup a server runs, keeping seven. What a backup holds is `_contents.ts`. It never
 * parses cards (card/), and it writes into a vault only by renames under the vault lock (vault/).
 */

export { vaultForBackup } from "./_contents.ts";
export type { Manifest, ManifestFile } from "./_manifest.ts";
export { type BackupKind, parseBackupName } from "./_names.ts";
export { MAX_UNPACKED, readBackup, type UnpackedBackup } from "./_unpack.ts";
export {
  backupDue,
  createDailyBackups,
  DAILY_DEFAULTS,
  type DailyBackups,
  type DailyOptions,
  type DailyRun,
  dailyBackups,
  makeDailyBackup,
  rotate,
} from "./daily.ts";
export { type RestoreOptions, type RestoreResult, restoreBackup } from "./restore.ts";
export { type BackupOptions, type BackupResult, defaultBackupDir, writeBackup } from "./write.ts";
