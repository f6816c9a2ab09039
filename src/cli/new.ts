// `lorecards new KIND TITLE`: a new card from flags, or its text from a file or stdin, for scripts. It
// goes through the same door as MCP's write_card (writes/): a legal name, no name taken, the field
// limits and the write checks, then the vault's locked write with a history entry by `cli`.
import { wordsOfLine } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { createFromFields, type Section } from "../writes/index.ts";
import { defineCommand, jsonArg, print, printJson, repeatedFlag, vaultArg, wholeNumber } from "./_shared.ts";
import { bookArg, openBook } from "./_vault.ts";
import { inputText, refuseHeadingIn, warningLines } from "./_writing.ts";

export const newCommand = defineCommand({
  meta: {
    name: "new",
    description:
      'a new card: lorecards new people Marguerite --keywords "Marguerite, Maggie" --section "who=my neighbour"',
  },
  args: {
    kind: {
      type: "positional",
      description: "its kind (people, event, place, thing, slang, entry)",
      required: true,
    },
    title: { type: "positional", description: "its title", required: true },
    key: { type: "string", description: "the file name (default: the title)", valueHint: "KEY" },
    keywords: { type: "string", description: "the words it fires on, comma-separated", valueHint: "WORDS" },
    aliases: { type: "string", description: "other names it fires on, comma-separated", valueHint: "WORDS" },
    priority: {
      type: "string",
      description: "tie-breaker between cards that score the same (default 0)",
      valueHint: "N",
    },
    section: {
      type: "string",
      description: 'a section as "heading=text"; repeat it for more',
      valueHint: "HEADING=TEXT",
    },
    input: {
      type: "string",
      description: "the card's text as Markdown (## sections) from a file, or - for stdin",
      valueHint: "FILE",
    },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args, rawArgs }) {
    const sections = repeatedFlag(rawArgs, "--section").map(sectionOf);
    if (args.input !== undefined && sections.length > 0)
      throw new LoreError("usage", "give the card's text with --section or with --input, not both");
    const vault = openBook(args);
    const { card, warnings } = await createFromFields(
      vault,
      {
        kind: args.kind,
        title: args.title,
        key: args.key,
        keywords: wordsOfLine(args.keywords ?? ""),
        aliases: wordsOfLine(args.aliases ?? ""),
        priority: wholeNumber(args.priority, "--priority"),
        sections,
        body: args.input === undefined ? undefined : await inputText(args.input),
      },
      {
        writer: "cli",
        keyName: "--key (the file name)",
        whenTaken: "change it with lorecards update, or choose another title",
        bookFlag: args.book?.trim() ? undefined : "--book",
      },
    );
    if (args.json)
      printJson({
        status: "created",
        kind: card.kind,
        key: card.key,
        path: card.path,
        title: card.title,
        warnings,
      });
    else print([`Created ${card.kind}/${card.key} (${card.path}).`, ...warningLines(warnings)].join("\n"));
    return 0;
  },
});

/** `who=text` → a section; the text may hold `=`, but no line may start a section of its own. */
function sectionOf(value: string): Section {
  const at = value.indexOf("=");
  const heading = at < 0 ? "" : value.slice(0, at).trim();
  if (heading === "") throw new LoreError("usage", `--section takes "heading=text", got "${value}"`);
  const text = value.slice(at + 1);
  refuseHeadingIn(text, heading);
  return { heading, text };
}
