// `lorecards archive NAME`: a card moved to `<vault>/_archive/`, as the editor does (nothing is ever
// deleted), under the vault lock and with a history entry by `cli`; `lorecards restore` brings it back.
import { archiveCard, findCard } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, inBookOrSaid, openBook } from "./_vault.ts";

export const nameArgs = {
  name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
  kind: { type: "string", description: "look for the card in this kind only", valueHint: "KIND" },
  ...bookArg,
  ...vaultArg,
  ...jsonArg,
} as const;

export const archiveCommand = defineCommand({
  meta: { name: "archive", description: "move a card to the archive (_archive/), where restore finds it" },
  args: nameArgs,
  async run({ args }) {
    const vault = openBook(args);
    const card = inBookOrSaid(args, args.name, () => findCard(vault, args.name, args.kind));
    const archived = await archiveCard(vault, card.kind, card.key, { writer: "cli" });
    if (args.json)
      printJson({
        status: "archived",
        kind: archived.kind,
        key: card.key,
        archived_as: archived.key,
        path: archived.path,
      });
    else
      print(
        `Archived ${card.kind}/${card.key} as ${archived.path} (lorecards restore "${card.key}" brings it back).`,
      );
    return 0;
  },
});
