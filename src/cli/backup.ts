// `lorecards backup [--to DIR] [--with-recalls] [--json]`: a snapshot of the vault as a .tar.gz with a
// manifest, in <vault>/.lorecards/backups unless --to names another folder; state's recall events only
// with --with-recalls.
import path from "node:path";
import { type BackupResult, vaultForBackup, writeBackup } from "../backup/index.ts";
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
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = vaultForBackup(vaultPath(args));
    const result = await writeBackup(vault, {
      dir: args.to ? path.resolve(args.to) : undefined,
      withRecalls: args["with-recalls"] === true,
    });
    if (args.json) printJson(result);
    else print(backupLine(result));
    return 0;
  },
});
