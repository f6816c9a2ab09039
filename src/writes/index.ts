/**
 * Writing a card from fields, the way every writer that is not a form does it (MCP `write_card`, the
 * CLI's `new` and `update`): a new card from a kind, a title, words and sections, or one section of an
 * existing card replaced. One door, so the rules are the same whoever writes: a legal file name (and
 * one to use instead when it is not), no name any card already answers to (nor, in the vault's own
 * cards written unasked, a card of a book read beside them), the field limits, the write
 * checks (vet/), then the vault's locked, atomic write with its history entry (vault/). It
 * never decides how a surface words its hints beyond the few words it is given.
 */
import {
  assertCardLimits,
  keyFromTitle,
  keyProblem,
  kindByName,
  replaceSection,
  textProblem,
} from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { chooseBooks } from "../recall/books.ts";
import {
  cardsInBooks,
  createCard,
  findCard,
  indexLookup,
  loadIndex,
  readBooks,
  updateSection,
  type Vault,
  type Writer,
} from "../vault/index.ts";
import { vetCreate, vetUpdate, type WriteWarning } from "../vet/index.ts";

export interface Section {
  heading: string;
  text: string;
}

export interface NewCardFields {
  kind: string;
  title: string;
  /** The file name; the title when not given. */
  key?: string;
  keywords?: string[];
  aliases?: string[];
  priority?: number;
  sections?: Section[];
  /** The card's text as Markdown (`## section` headings and their text), instead of `sections`. */
  body?: string;
}

export interface WriteHints {
  /** Who writes, for the card's history. */
  writer: Writer;
  /** How the surface names the key, in "pass … instead": `a key (the file name)`, `--key`. */
  keyName: string;
  /** What to do instead of creating a card whose name is taken, as the surface words it. */
  whenTaken: string;
  /**
   * Set when the card goes into the vault's own cards because no book was named: the flag that names
   * one (`--book`). A name an enabled card of a book read beside them by default already answers to is
   * then taken too, since both cards would be sent for it; the refusal names the book and the flag
   * (`main` makes the card anyway).
   */
  bookFlag?: string;
}

export interface Written {
  card: Card;
  /** What the write checks found worth fixing; a refused write throws instead. */
  warnings: WriteWarning[];
}

/** A new card: the checks, then the write. LoreError invalid_key, conflict, invalid_input, unknown_kind. */
export async function createFromFields(
  vault: Vault,
  fields: NewCardFields,
  hints: WriteHints,
): Promise<Written> {
  const kind = kindByName(vault.kinds, fields.kind);
  const title = fields.title.trim();
  if (title === "") throw new LoreError("invalid_input", "a card needs a title");
  const keywords = fields.keywords ?? [];
  const aliases = fields.aliases ?? [];
  // What the title and words hold is judged first: a key made from a title can hide what it held.
  assertCardLimits({ title, keywords, aliases });
  const key = fields.key ?? title;
  const problem = keyProblem(key);
  if (problem !== null) {
    // Say what to change: a legal file name made from what was given.
    const instead = JSON.stringify(keyFromTitle(key));
    const hint =
      fields.key === undefined
        ? `pass ${hints.keyName} instead, for example ${instead}`
        : `choose another key, for example ${instead}`;
    throw new LoreError("invalid_key", `${problem}: ${JSON.stringify(key)}; ${hint}`);
  }
  refuseTakenName(vault, [key, title], hints.whenTaken);
  if (hints.bookFlag !== undefined) refuseNameInBooks(vault.root, [key, title], hints.bookFlag);
  const sections = fields.sections ?? [];
  if (fields.body !== undefined && sections.length > 0)
    throw new LoreError("invalid_input", "give the card's text as sections or as a body, not both");
  const headings = new Set<string>();
  for (const s of sections) {
    const h = s.heading.toLowerCase();
    if (headings.has(h)) throw new LoreError("invalid_input", `section "${s.heading}" is given twice`);
    headings.add(h);
  }
  assertCleanText([
    ...sections.flatMap((s, i): [string, string, boolean][] => [
      [`sections[${i}].heading`, s.heading, false],
      [`sections[${i}].text`, s.text, true],
    ]),
    ["body", fields.body ?? "", true],
  ]);
  const frontmatter: Record<string, unknown> = { kind: kind.name, title, keywords };
  if (aliases.length > 0) frontmatter.aliases = aliases;
  if (fields.priority !== undefined && fields.priority !== 0) frontmatter.priority = fields.priority;
  const body =
    fields.body !== undefined
      ? `${fields.body.replace(/\r\n?/g, "\n").trimEnd()}\n`
      : sections.map((s) => `## ${s.heading}\n${s.text.trim()}\n`).join("\n");
  const draft = { kind: kind.name, key, frontmatter, body };
  const warnings = vetCreate(vault, draft);
  return { card: await createCard(vault, draft, { writer: hints.writer }), warnings };
}

/** Refuses (invalid_input) a text holding a control character, a bidi control or half a surrogate pair. */
function assertCleanText(texts: readonly [field: string, text: string, lines: boolean][]): void {
  const problems = texts.flatMap(([field, text, lines]) => textProblem(field, text, lines) ?? []);
  if (problems.length > 0) throw new LoreError("invalid_input", problems.join("; "), { data: { problems } });
}

/**
 * A new card may not share its key or title with any card of any kind: names must stay unambiguous.
 * "Shares" is the rule every name lookup follows (vault/ lookup): whatever a read by name would find.
 */
function refuseTakenName(vault: Vault, names: string[], whenTaken: string): void {
  const lookup = indexLookup(vault.kinds, loadIndex(vault));
  const taken = names.map((n) => lookup.find(n)).find((c) => c !== undefined);
  if (taken) {
    throw new LoreError(
      "conflict",
      `a card named "${taken.title}" already exists (${taken.kind}/${taken.key}); ${whenTaken}`,
    );
  }
}

/** A name a card of a book read by default answers to (recall/books.ts), the vault's own being written. */
function refuseNameInBooks(vaultRoot: string, names: string[], flag: string): void {
  const [held] = cardsInBooks(vaultRoot, names, {
    only: chooseBooks(readBooks(vaultRoot)).books,
    enabled: true,
  });
  if (held) {
    const { book, card } = held;
    throw new LoreError(
      "conflict",
      `a card named "${card.title}" already exists in the book ${book} (${card.kind}/${card.key}), read beside ` +
        `these cards by default: ${flag} ${book} works on it there, ${flag} main makes this one anyway`,
    );
  }
}

/**
 * One section of the card `name` replaced by `text` (added when the card has none); every other byte
 * of the file stays as it was. The write checks run on the card as it would be.
 */
export async function updateSectionOf(
  vault: Vault,
  name: string,
  heading: string,
  text: string,
  opts: { writer: Writer; kind?: string },
): Promise<Written> {
  assertCleanText([
    ["heading", heading, false],
    ["text", text, true],
  ]);
  const card = findCard(vault, name, opts.kind);
  const warnings = vetUpdate(vault, card.kind, card.key, (old) => replaceSection(old, heading, text));
  const written = await updateSection(vault, card.kind, card.key, heading, text, { writer: opts.writer });
  return { card: written, warnings };
}
