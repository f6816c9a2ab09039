// `lorecards read NAME`: print one card (by file name or title, any kind; `kind/key` to be exact).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cardDocument } from "../card/index.ts";
import { findCard, openVault } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const readCommand = defineCommand({
  meta: { name: "read", description: "print one card" },
  args: {
    name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    const card = findCard(vault, args.name);
    if (args.json) {
      printJson(cardDocument(card));
    } else {
      print(readFileSync(join(vault.root, card.path), "utf8"));
    }
    return 0;
  },
});
