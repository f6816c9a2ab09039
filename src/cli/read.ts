// `lorecards read NAME`: print one card (by file name or title, any kind; `kind/key` to be exact).

import { join } from "node:path";
import { cardDocument } from "../card/index.ts";
import { findCard, readNoFollow } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, inBookOrSaid, openBook } from "./_vault.ts";

export const readCommand = defineCommand({
  meta: { name: "read", description: "print one card" },
  args: {
    name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openBook(args);
    const card = inBookOrSaid(args, args.name, () => findCard(vault, args.name));
    if (args.json) {
      printJson(cardDocument(card));
    } else {
      print(readNoFollow(vault, join(vault.root, card.path)));
    }
    return 0;
  },
});
