// `lorecards repair [--dry-run] [--json]`: cards imported with the old lorebook mapping, mapped again.
import { type RepairResult, repairImports } from "../interop/index.ts";
import { openVault } from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { vaultPath } from "./_vault.ts";

export function repairLines(r: RepairResult): string[] {
  const verb = r.dryRun ? "would repair" : "repaired";
  const lines = [
    `${verb} ${r.cards.length} card${r.cards.length === 1 ? "" : "s"} imported with the old mapping`,
  ];
  for (const c of r.cards) {
    lines.push(`  ${c.path}`);
    for (const change of c.changes) lines.push(`    ${change}`);
  }
  for (const s of r.skipped) lines.push(`  skipped ${s.title}: ${s.reason}`);
  return lines;
}

export const repairCommand = defineCommand({
  meta: {
    name: "repair",
    description: "re-map cards imported before lorebook fields were honoured (see `check`)",
  },
  args: {
    "dry-run": { type: "boolean", description: "list what would change; write nothing" },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args));
    const result = await repairImports(vault, { dryRun: args["dry-run"] === true });
    if (args.json) printJson(toWire(result));
    else print(repairLines(result).join("\n"));
    return 0;
  },
});
