// `lorecards revert NAME --version N`: put a card back as it was after one of its versions (README
// "History"). Not `restore`: in lorecards that word already means bringing an archived card back (the
// editor, `POST /api/cards/…/restore`), and `restore-backup` brings a whole vault back; this one goes
// back in a card's history. It is a write like any other, recorded as a version of its own.
import { findHistoryCard, revertCard } from "../vault/index.ts";
import { isoFromNs } from "../wire.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg, wholeNumber } from "./_shared.ts";
import { bookArg, inBookOrSaid, openBook } from "./_vault.ts";

export const revertCommand = defineCommand({
  meta: { name: "revert", description: "put a card back as it was after one of its versions" },
  args: {
    name: { type: "positional", description: "file name or title of the card (or kind/key)", required: true },
    version: {
      type: "string",
      description: "the version to go back to (see: lorecards history NAME)",
      valueHint: "N",
      required: true,
    },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const version = wholeNumber(args.version, "--version")!;
    const vault = openBook(args);
    const { kind, key, card: read } = inBookOrSaid(args, args.name, () => findHistoryCard(vault, args.name));
    // The card as read here is the precondition: a write in between is a conflict, not overwritten.
    const { card, changed } = await revertCard(vault, kind, key, version, {
      writer: "cli",
      mtime: read?.mtime,
      size: read?.size,
    });
    if (args.json) {
      printJson({ kind, key, path: card.path, reverted_to: version, changed, mtime: isoFromNs(card.mtime) });
    } else if (changed) print(`${kind}/${key} is back as it was after version ${version}.`);
    else print(`${kind}/${key} already is as it was after version ${version}; nothing was written.`);
    return 0;
  },
});
