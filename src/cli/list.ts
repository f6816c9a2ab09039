// `lorecards list [--kind K]`: every card with its keywords, grouped by kind.
import { defineCommand } from "citty";
import { kindByName } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { loadIndex, openVault } from "../vault/index.ts";
import { isDefaultVault, jsonArg, print, printJson, vaultArg, vaultPath } from "./_shared.ts";

export const listCommand = defineCommand({
  meta: { name: "list", description: "every card with its keywords" },
  args: {
    kind: { type: "string", description: "only this kind (people, event, place, thing, slang, entry)" },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    if (args.kind !== undefined && !kindByName(vault.kinds, args.kind)) {
      const known = vault.kinds.kinds.map((k) => k.name).join(", ");
      throw new LoreError("unknown_kind", `unknown kind "${args.kind}" (known: ${known})`);
    }
    const { cards, broken } = loadIndex(vault);
    const shown = cards
      .filter((c) => args.kind === undefined || c.kind === args.kind)
      .sort((a, b) => (a.kind === b.kind ? a.title.localeCompare(b.title) : a.kind.localeCompare(b.kind)));
    if (args.json) {
      printJson({
        cards: shown.map((c) => ({
          key: c.key,
          kind: c.kind,
          title: c.title,
          path: c.path,
          keywords: c.keywords,
          aliases: c.aliases,
          enabled: c.enabled,
          inject: c.inject,
        })),
        broken: broken.map((b) => ({ path: b.path, error: b.error })),
      });
      return 0;
    }
    const lines: string[] = [];
    let kind = "";
    for (const c of shown) {
      if (c.kind !== kind) {
        kind = c.kind;
        lines.push(`${lines.length ? "\n" : ""}${kind}:`);
      }
      const flags = [!c.enabled && "disabled", !c.inject && "not injected"].filter(Boolean).join(", ");
      const terms = [...c.keywords, ...c.aliases].join(", ");
      lines.push(`  ${c.title}${terms ? `  — ${terms}` : ""}${flags ? `  (${flags})` : ""}`);
    }
    if (shown.length === 0) lines.push("No cards.");
    for (const b of broken) lines.push(`! ${b.path}: ${b.error}`);
    print(lines.join("\n"));
    return 0;
  },
});
