// `lorecards update NAME SECTION TEXT`: one section of a card replaced (added when the card has none),
// every other byte of the file kept, for scripts. The same door as MCP's update_recent (writes/): the
// write checks on the card as it would be, the vault's locked write, a history entry by `cli`.
import { LoreError } from "../errors.ts";
import { updateSectionOf } from "../writes/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, inBookOrSaid, openBook } from "./_vault.ts";
import { inputText, refuseHeadingIn, warningLines } from "./_writing.ts";

export const updateCommand = defineCommand({
  meta: {
    name: "update",
    description: 'replace one section of a card: lorecards update Alice recent "Moved to Paris in May."',
  },
  args: {
    name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
    section: { type: "positional", description: "the section's heading (who, recent, …)", required: true },
    text: { type: "positional", description: "its new text (or --input)", required: false },
    input: { type: "string", description: "the new text from a file, or - for stdin", valueHint: "FILE" },
    kind: { type: "string", description: "look for the card in this kind only", valueHint: "KIND" },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    if ((args.text === undefined) === (args.input === undefined))
      throw new LoreError(
        "usage",
        "give the section's new text, or --input FILE (- for stdin), one of the two",
      );
    const text = args.text ?? (await inputText(args.input!));
    refuseHeadingIn(text, args.section);
    const vault = openBook(args);
    const { card, warnings } = await inBookOrSaid(args, args.name, () =>
      updateSectionOf(vault, args.name, args.section, text, { writer: "cli", kind: args.kind }),
    );
    if (args.json)
      printJson({
        status: "updated",
        kind: card.kind,
        key: card.key,
        path: card.path,
        title: card.title,
        warnings,
      });
    else
      print([`Updated ${card.kind}/${card.key}: ## ${args.section}.`, ...warningLines(warnings)].join("\n"));
    return 0;
  },
});
