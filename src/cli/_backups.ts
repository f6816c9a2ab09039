// The daily backup a long-running `gateway` or `ui` makes (README "Backups"), and its flag.
import { createDailyBackups, type DailyBackups } from "../backup/index.ts";

/** `--backups` / `--no-backups`. */
export const backupsArg = {
  backups: {
    type: "boolean",
    default: true,
    description: "back the vault up once a day into <vault>/.lorecards/backups, keeping 7",
    negativeDescription: "make no daily backups",
  },
} as const;

/** The daily backups of the vault at `root`, started; undefined with --no-backups. */
export function startDailyBackups(root: string, args: { backups?: boolean }): DailyBackups | undefined {
  if (args.backups === false) return undefined;
  const daily = createDailyBackups({ root });
  daily.start();
  return daily;
}
