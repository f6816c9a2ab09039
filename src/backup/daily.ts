/**
 * The daily backup of a long-running `gateway` or `ui`: at start and then every hour, a backup is made
 * when the newest daily one is more than 23 hours old (so one a day, never drifting later), and the
 * daily ones past the newest seven are deleted. Only `daily-…` files are ever deleted; the ones the
 * `backup` command or a restore made are the user's to keep. A failed backup is one warning line and
 * the server goes on; the next hour tries again. The clock is an option, so a test can move it.
 * `makeDailyBackup` is one such backup now, if due (`lorecards backup --daily`); the scheduler runs it
 * through `make`, which a server points at a process of its own (cli/_backups.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describeError, warnOnStderr } from "../errors.ts";
import { vaultForBackup } from "./_contents.ts";
import { parseBackupName } from "./_names.ts";
import { type BackupResult, defaultBackupDir, writeBackup } from "./write.ts";

const HOUR = 3_600_000;

export interface DailyOptions {
  /** The vault root. */
  root: string;
  /** Default `<vault>/.lorecards/backups`. */
  dir?: string;
  /** Daily backups kept. Default 7. */
  keep?: number;
  /** How often to look whether one is due. Default an hour. */
  checkEveryMs?: number;
  now?: () => number;
  /** One line per backup made or failed. Default: stderr. */
  say?: (line: string) => void;
  /** Makes the backup when one is due (default `makeDailyBackup` in this process); throws when it fails. */
  make?: (o: DailyRun) => Promise<BackupResult | null>;
}

export interface DailyBackups {
  /** Make a backup if one is due, then rotate; resolves to it, or null when none was due or it failed. */
  check(): Promise<BackupResult | null>;
  /** Check now and every `checkEveryMs`, in the background. */
  start(): void;
  /** No more checks; resolves once a backup under way is finished. */
  stop(): Promise<void>;
}

/** One run of the daily backup: where, how many to keep, and the clock it is due by. */
export type DailyRun = Required<Pick<DailyOptions, "root" | "dir" | "keep" | "now" | "checkEveryMs">>;

export const DAILY_DEFAULTS = { keep: 7, checkEveryMs: HOUR, now: Date.now };

/** The daily backups in `dir`, newest first. */
export function dailyBackups(dir: string): { file: string; at: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, parsed: parseBackupName(name) }))
    .filter((e) => e.parsed?.kind === "daily")
    .map((e) => ({ file: path.join(dir, e.name), at: e.parsed!.at, n: e.parsed!.n }))
    .sort((a, b) => b.at - a.at || b.n - a.n)
    .map(({ file, at }) => ({ file, at }));
}

/**
 * Whether a daily backup is due at `now`: no daily backup was made in the last 23 hours (one an hour
 * short of a day, so the hourly check never lets the time of day drift later). One dated after `now`
 * (the clock went back) does not count, and does not make every check due either.
 */
export function backupDue(dir: string, now: number, checkEveryMs = HOUR): boolean {
  return !dailyBackups(dir).some((b) => b.at <= now && now - b.at < 24 * HOUR - checkEveryMs);
}

/** Delete the daily backups past the newest `keep`; returns the deleted files. */
export function rotate(dir: string, keep: number): string[] {
  const old = dailyBackups(dir).slice(keep);
  for (const b of old) fs.rmSync(b.file, { force: true });
  return old.map((b) => b.file);
}

/**
 * One daily backup of the vault at `o.root` into `o.dir`, if one is due at `o.now()`, then the daily ones
 * past the newest `o.keep` deleted; null when none was due. Throws when the backup fails (no vault there
 * among the reasons).
 */
export async function makeDailyBackup(o: DailyRun): Promise<BackupResult | null> {
  if (!backupDue(o.dir, o.now(), o.checkEveryMs)) return null;
  const made = await writeBackup(vaultForBackup(o.root), { dir: o.dir, kind: "daily", now: o.now });
  rotate(o.dir, o.keep);
  return made;
}

export function createDailyBackups(options: DailyOptions): DailyBackups {
  const o = { ...DAILY_DEFAULTS, ...options };
  const say = o.say ?? warnOnStderr;
  const make = o.make ?? makeDailyBackup;
  let running: Promise<BackupResult | null> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  async function once(): Promise<BackupResult | null> {
    try {
      // Looked up each time: a `.lorecards` made a link since is refused (stateIn), said in the warning.
      const dir = o.dir ?? defaultBackupDir(o.root);
      // No vault yet (a default one is made on first use): nothing to back up, nothing to warn about.
      // Due is asked here first: a check that finds none due costs a listing, not a backup's process.
      if (!fs.existsSync(o.root) || !backupDue(dir, o.now(), o.checkEveryMs)) return null;
      const made = await make({ root: o.root, dir, keep: o.keep, now: o.now, checkEveryMs: o.checkEveryMs });
      if (made) say(`lorecards: daily backup ${made.file}`);
      return made;
    } catch (err) {
      say(
        `lorecards: warning: the daily backup failed (${describeError(err)}); it is tried again every hour`,
      );
      return null;
    }
  }

  const check = () => {
    running ??= once().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    check,
    start() {
      void check();
      timer = setInterval(() => void check(), o.checkEveryMs);
      timer.unref();
    },
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      await running;
    },
  };
}
