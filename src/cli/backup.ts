// `lorecards backup [--to DIR] [--with-recalls] [--daily] [--json]`: a snapshot of the vault as a
// .tar.gz with a manifest, in <vault>/.lorecards/backups unless --to names another folder; state's
// recall events only with --with-recalls. With --daily, the daily backup a running gateway or ui makes
// (backup/daily.ts): only when one is due, and the daily ones past the newest 7 deleted.
import path from "node:path";
import {
  type BackupResult,
  DAILY_DEFAULTS,
  defaultBackupDir,
  makeDailyBackup,
  vaultForBackup,
  writeBackup,
} from "../backup/index.ts";
import { LoreError } from "../errors.ts";
import { existingFolder } from "./_files.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { vaultPath } from "./_vault.ts";

/** 1536 → "1.5 KB". */
export function sizeText(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB"];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${n.toFixed(1)} ${units[u]}`;
}

export function backupLine(r: BackupResult): string {
  const recalls = r.recalls
    ? "with the recall events"
    : "without the recall events (--with-recalls keeps them)";
  return `backed up ${r.files} file${r.files === 1 ? "" : "s"} to ${r.file} (${sizeText(r.bytes)}), ${recalls}`;
}

export const backupCommand = defineCommand({
  meta: {
    name: "backup",
    description: "the cards, settings and state as one .tar.gz (in <vault>/.lorecards/backups)",
  },
  args: {
    to: { type: "string", description: "the folder to write it in", valueHint: "DIR" },
    "with-recalls": {
      type: "boolean",
      description: "keep the recall events (index recalls and the cards agents opened from them)",
    },
    daily: {
      type: "boolean",
      description:
        "the daily backup, as a running gateway or ui makes it: only if none was made in the last 23 hours, and the daily ones past the newest 7 deleted (for a timer or cron job)",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    if (args.daily) return daily(args);
    const vault = vaultForBackup(vaultPath(args));
    const result = await writeBackup(vault, {
      dir: args.to ? namedFolder(args.to, vault.root) : undefined,
      withRecalls: args["with-recalls"] === true,
    });
    if (args.json) printJson(result);
    else print(backupLine(result));
    return 0;
  },
});

/**
 * `--daily`: the daily backup if one is due. `--json` prints `{"made": …}`, the backup or null; a
 * server runs this in a process of its own (cli/_backups.ts) and reads that line.
 */
async function daily(args: { vault?: string; to?: string; "with-recalls"?: boolean; json?: boolean }) {
  if (args["with-recalls"])
    throw new LoreError("usage", "--daily backups never keep the recall events: drop --with-recalls");
  const root = vaultPath(args);
  const dir = args.to ? namedFolder(args.to, root) : defaultBackupDir(root);
  const made = await makeDailyBackup({ ...DAILY_DEFAULTS, root, dir });
  if (args.json) printJson({ made });
  else print(made ? backupLine(made) : `no daily backup due: the newest in ${dir} is less than 23 hours old`);
  return 0;
}

/**
 * `--to`, which must be there: the vault's own backups folder is made as needed (a server names it for
 * its daily backup), any other never.
 */
function namedFolder(to: string, root: string): string {
  const dir = path.resolve(to);
  if (dir !== defaultBackupDir(root)) existingFolder(dir);
  return dir;
}
