// `lorecards restore-backup FILE [--to DIR] [--force] [--json]`: a backup back, into an empty folder
// (the vault's own when it is empty or missing), or with --force over the vault, which is backed up
// first. A damaged or foreign archive is refused and nothing is written.
import path from "node:path";
import { type RestoreResult, restoreBackup } from "../backup/index.ts";
import { terminalProgress } from "./_progress.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { vaultPath } from "./_vault.ts";

export function restoreLines(file: string, r: RestoreResult): string[] {
  const lines = [
    `restored ${r.files} file${r.files === 1 ? "" : "s"} into ${r.target} ` +
      `(from ${path.basename(file)}, made ${r.backup.created} by lorecards ${r.backup.lorecards})`,
    `it was a ${r.backup.kind} backup ${r.backup.recalls ? "with" : "without"} the recall events`,
  ];
  if (r.replaced) lines.push(`the vault as it was before is in ${r.replaced.file}`);
  return lines;
}

export const restoreBackupCommand = defineCommand({
  meta: {
    name: "restore-backup",
    description: "restore a backup into an empty folder, or over the vault with --force",
  },
  args: {
    file: { type: "positional", required: true, description: "the .tar.gz `lorecards backup` wrote" },
    to: {
      type: "string",
      description: "restore into this folder (empty or missing) instead of the vault",
      valueHint: "DIR",
    },
    force: {
      type: "boolean",
      description: "replace the cards, settings and state there, after backing them up",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const target = args.to ? path.resolve(args.to) : vaultPath(args);
    // A line on a terminal while the files are written; scripts and pipes see none.
    const progress = terminalProgress("restoring files");
    const result = await restoreBackup(path.resolve(args.file), {
      target,
      force: args.force === true,
      ...(progress && { progress }),
    });
    progress?.end();
    if (args.json) printJson(result);
    else print(restoreLines(args.file, result).join("\n"));
    return 0;
  },
});
