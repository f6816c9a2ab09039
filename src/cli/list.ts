// `lorecards list [--kind K]`: every card with its keywords, grouped by kind.
import { brokenSummary, byKindThenTitle, cardSummary, kindByName } from "../card/index.ts";
import { loadIndex, otherBooks } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { bookArg, openBook } from "./_vault.ts";

export const listCommand = defineCommand({
  meta: { name: "list", description: "every card with its keywords" },
  args: {
    kind: { type: "string", description: "only this kind (people, event, place, thing, slang, entry)" },
    ...bookArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const vault = openBook(args);
    // A kind may be named as a kind (`event`) or by its directory (`events`); anything else is an error.
    const kind = args.kind === undefined ? undefined : kindByName(vault.kinds, args.kind).name;
    const { cards, broken } = loadIndex(vault);
    const shown = cards.filter((c) => kind === undefined || c.kind === kind).sort(byKindThenTitle);
    const books = args.book === undefined ? otherBooks(vault.root) : [];
    if (args.json) {
      const list = { cards: shown.map((c) => cardSummary(c)), broken: broken.map((b) => brokenSummary(b)) };
      printJson(books.length > 0 ? { ...list, books } : list);
      return 0;
    }
    const lines: string[] = [];
    let group = "";
    for (const c of shown) {
      if (c.kind !== group) {
        group = c.kind;
        lines.push(`${lines.length ? "\n" : ""}${group}:`);
      }
      const flags = [!c.enabled && "disabled", !c.inject && "not injected"].filter(Boolean).join(", ");
      const terms = [...c.keywords, ...c.aliases].join(", ");
      lines.push(`  ${c.title}${terms ? `  — ${terms}` : ""}${flags ? `  (${flags})` : ""}`);
    }
    if (shown.length === 0) lines.push("No cards.");
    for (const b of broken) lines.push(`! ${b.path}: ${b.error}`);
    if (books.length > 0) {
      lines.push("", "books (lorecards list --book NAME):");
      for (const b of books) {
        const bound = b.characters.length > 0 ? `, ${b.characters.join(", ")}'s` : "";
        lines.push(
          `  ${b.name}  — ${b.cards} card(s)${bound}${b.active === "asked" ? ", when asked for" : ""}`,
        );
      }
    }
    print(lines.join("\n"));
    return 0;
  },
});
