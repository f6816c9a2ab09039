// The daily backup a long-running `gateway` or `ui` makes (README "Backups"), and its flag. The backup
// itself runs in a process of its own (`lorecards backup --daily --json`): reading and packing every
// card held a 100,000-card vault's server near 450 MB and kept its requests waiting for a second or
// more; the server only asks each hour whether one is due, a listing of the backups folder.
import { type BackupResult, createDailyBackups, type DailyBackups, type DailyRun } from "../backup/index.ts";
import { LOW_PRIORITY, selfCommand } from "./_self.ts";

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
  const daily = createDailyBackups({ root, make: inOwnProcess });
  daily.start();
  return daily;
}

/** The daily backup by this program run again, at a low priority; its `{"made": …}` line, or its error. */
async function inOwnProcess(run: DailyRun): Promise<BackupResult | null> {
  const [cmd, ...rest] = selfCommand();
  const proc = Bun.spawn(
    [cmd!, ...rest, "backup", "--daily", "--json", "--vault", run.root, "--to", run.dir],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  try {
    const { setPriority } = await import("node:os");
    setPriority(proc.pid, LOW_PRIORITY);
  } catch {
    // not allowed here: it runs at our priority
  }
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) {
    const said = err
      .trim()
      .split("\n")
      .at(-1)
      ?.replace(/^lorecards: /, "");
    throw new Error(said || `lorecards backup --daily exited with ${code}`);
  }
  return (JSON.parse(out) as { made: BackupResult | null }).made;
}
