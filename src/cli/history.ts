// `lorecards history NAME [--version N]`: a card's versions, newest first (number, time, who wrote it,
// size, what changed), or one version's change as a unified diff. README "History".
import { LoreError } from "../errors.ts";
import {
  describeVersion,
  findHistoryCard,
  HISTORY_CAP,
  readHistory,
  readVersion,
  type VersionInfo,
  versionDiff,
} from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg, wholeNumber } from "./_shared.ts";
import { bookArg, inBookOrSaid, openBook } from "./_vault.ts";

/** Local time, to the second: `2025-06-01 14:30:05`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function sizeText(size: number | null): string {
  return size === null ? "-" : `${size} B`;
}

export function versionLines(name: string, versions: VersionInfo[]): string[] {
  if (versions.length === 0) return [`${name} has no recorded versions.`];
  const head = `${name}: ${versions.length} version${versions.length === 1 ? "" : "s"}, newest first (the newest ${HISTORY_CAP} are kept)`;
  const width = String(versions[0]!.version).length + 1;
  return [
    head,
    ...versions.map(
      (v) =>
        `  ${`#${v.version}`.padEnd(width)}  ${localTime(v.at)}  ${v.writer.padEnd(6)}  ${sizeText(v.size).padStart(8)}  ${v.summary}`,
    ),
  ];
}

export const historyCommand = defineCommand({
  meta: { name: "history", description: "a card's versions, newest first, or one version's change" },
  args: {
    name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
    version: { type: "string", description: "show this version's change as a diff", valueHint: "N" },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openBook(args);
    const { kind, key } = inBookOrSaid(args, args.name, () => findHistoryCard(vault, args.name));
    const asked = wholeNumber(args.version, "--version");
    if (asked === undefined) {
      const versions = await Promise.all(readHistory(vault, kind, key).map(describeVersion));
      if (args.json) printJson({ kind, key, kept: HISTORY_CAP, versions });
      else print(versionLines(`${kind}/${key}`, versions).join("\n"));
      return 0;
    }
    const row = readVersion(vault, asked);
    if (row === null || row.kind !== kind || row.key !== key) {
      throw new LoreError(
        "not_found",
        `${kind}/${key} has no version ${asked} (see: lorecards history ${args.name})`,
      );
    }
    const info = await describeVersion(row);
    const { hunks, patch } = await versionDiff(row);
    if (args.json) printJson({ kind, key, ...info, before: row.before, after: row.after, diff: hunks });
    else {
      const head = `#${info.version}  ${localTime(info.at)}  ${info.writer}  ${info.action}: ${info.summary}`;
      // jsdiff opens a patch with a line of "="; the ---/+++ lines after it name the two texts.
      print(`${head}\n${patch.split("\n").slice(1).join("\n")}`);
    }
    return 0;
  },
});
