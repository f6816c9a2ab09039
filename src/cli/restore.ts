// `lorecards restore NAME`: an archived card brought back, as the editor does, under the vault lock and
// with a history entry by `cli`. It is found by the name it had, its title, or its name in the archive
// (`Alice~2` when an earlier Alice was archived too); a name that fits several asks for the one meant.
import path from "node:path";
import { kindByName, parseCard } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { type ArchivedCard, listArchived, readNoFollow, restoreCard, type Vault } from "../vault/index.ts";
import { defineCommand, print, printJson } from "./_shared.ts";
import { openBook } from "./_vault.ts";
import { nameArgs } from "./archive.ts";

export const restoreCommand = defineCommand({
  meta: { name: "restore", description: "bring an archived card back" },
  args: nameArgs,
  async run({ args }) {
    const vault = openBook(args);
    const found = archivedNamed(vault, args.name, args.kind);
    const card = await restoreCard(vault, found.kind, found.key, { writer: "cli" });
    if (args.json)
      printJson({ status: "restored", kind: card.kind, key: card.key, path: card.path, title: card.title });
    else print(`Restored ${card.kind}/${card.key} (${card.path}).`);
    return 0;
  },
});

/**
 * The archived card `name` names: by its name in the archive, the name it had or its title. A name
 * given with its kind (`people/Alice~2`, as the question below lists them) is the archive's name first.
 */
function archivedNamed(vault: Vault, name: string, kind: string | undefined): ArchivedCard {
  const slash = name.indexOf("/");
  const qualified = slash > 0 && kind === undefined;
  const only = qualified ? name.slice(0, slash) : kind;
  const bare = (qualified ? name.slice(slash + 1) : name).toLowerCase();
  const ofKind = only === undefined ? undefined : kindByName(vault.kinds, only).name;
  const all = listArchived(vault).filter((a) => ofKind === undefined || a.kind === ofKind);
  const exact = all.filter((a) => a.key.toLowerCase() === bare);
  if (qualified && exact.length === 1) return exact[0]!;
  const hits = all.filter(
    (a) => a.key.toLowerCase() === bare || a.originalKey.toLowerCase() === bare || titleOf(vault, a) === bare,
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) throw new LoreError("not_found", `no archived card named "${name}"`);
  // As for a name two live cards share (cli/_vault.ts findCard): a conflict, exit 4.
  throw new LoreError(
    "conflict",
    `"${name}" names ${hits.length} archived cards: ${hits.map((a) => `${a.kind}/${a.key}`).join(", ")}; name one of them`,
  );
}

/** An archived card's title, folded; an unreadable one has none. */
function titleOf(vault: Vault, a: ArchivedCard): string | undefined {
  try {
    const text = readNoFollow(vault, path.join(vault.root, a.path));
    return parseCard(text, {
      kind: a.kind,
      key: a.originalKey,
      path: a.path,
      kinds: vault.kinds,
    }).title.toLowerCase();
  } catch {
    return undefined;
  }
}
