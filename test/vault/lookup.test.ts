// Cards by name: the one rule `read`, MCP, recall's "see also" lines and `check` all follow, and the
// proof that check and recall agree on every ref.
import { afterEach, describe, expect, test } from "bun:test";
import type { CardMeta } from "../../src/card/types.ts";
import { checkCards } from "../../src/check/index.ts";
import type { LoreError } from "../../src/errors.ts";
import { contextText, openEngine } from "../../src/recall/index.ts";
import { findCard, indexLookup, loadIndex, lookupIn, openVault, refTarget } from "../../src/vault/index.ts";
import { cardMeta } from "../support/card-meta.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

function meta(id: string, extra: Partial<CardMeta> = {}): CardMeta {
  const [kind, key] = id.split("/") as [string, string];
  const dir = { people: "people", event: "events", thing: "things", slang: "slang", entry: "" }[kind];
  return cardMeta(key, { kind, path: dir ? `${dir}/${key}.md` : `${key}.md`, ...extra });
}

// Kinds in table order, as the index lists them.
const CARDS = [
  meta("people/Alice"),
  meta("people/Bob", { title: "Robert" }),
  meta("people/Ghost", { enabled: false }),
  meta("people/Max", { enabled: false }),
  meta("people/Maximilian", { title: "Max" }),
  meta("people/Twin", { enabled: false }),
  meta("event/the Friday deploy"),
  meta("thing/Straße"),
  meta("slang/Twin"),
  meta("entry/Eldoria"),
];

const NAMES: [string, string, string | undefined][] = [
  ["its key", "Alice", "people/Alice"],
  ["its key in another case", "alice", "people/Alice"],
  ["its file name, in another case, with spaces around", "  ALICE.md ", "people/Alice"],
  ["kind/key", "people/Alice", "people/Alice"],
  ["kind/key in another case", "People/alice", "people/Alice"],
  ["folder/key", "events/the Friday deploy", "event/the Friday deploy"],
  ["folder/key in another case", "EVENTS/the friday deploy", "event/the Friday deploy"],
  ["its title", "robert", "people/Bob"],
  ["a key folded beyond lower case (ß = ss)", "STRASSE", "thing/Straße"],
  ["a card in the vault root", "eldoria", "entry/Eldoria"],
  ["a disabled card (it can still be read)", "Ghost", "people/Ghost"],
  ["a name two cards share: the enabled one wins", "Twin", "slang/Twin"],
  ["a name that is one card's key and another's title: the key wins, disabled or not", "Max", "people/Max"],
  ["a name nobody has", "Nobody", undefined],
  ["a kind that does not hold the key", "place/Alice", undefined],
  ["a path out of the vault", "../../etc/passwd", undefined],
];

describe("finding a card by name", () => {
  const lookup = lookupIn(CARDS);
  test.each(NAMES)("%s", (_what, name, id) => {
    const card = lookup.find(name);
    expect(card && `${card.kind}/${card.key}`).toBe(id);
  });

  test("within one kind, a card of another kind is not found", () => {
    expect(lookup.find("Alice", { kind: "thing" })).toBeUndefined();
    expect(lookup.find("robert", { kind: "people" })?.key).toBe("Bob");
  });

  test.each([
    ["Bob", "ok"],
    ["Ghost", "disabled"],
    ["Nobody", "missing"],
  ])("a ref to %p is %s", (ref, status) => {
    expect(refTarget(lookup, ref).status).toBe(status as "ok" | "disabled" | "missing");
  });
});

describe("finding a card by name in the vault index", () => {
  let vault: TempVault | undefined;
  afterEach(() => vault?.remove());

  // The same cards as files: the index answers every step from its own columns, never from a table
  // of every card (which at 100,000 cards a server would build again after each save).
  test("finds what the list of every card finds, without reading that list", () => {
    vault = tempVault(
      Object.fromEntries(
        CARDS.map((c) => [
          c.path,
          cardText(`title: ${JSON.stringify(c.title)}\nkeywords: [${c.key}]\nenabled: ${c.enabled}`, "x\n"),
        ]),
      ),
    );
    const v = openVault(vault.root);
    const index = loadIndex(v);
    const lookup = indexLookup(v.kinds, {
      entries: index.entries,
      get cards(): CardMeta[] {
        throw new Error("every card was read");
      },
    });
    for (const [what, name, id] of NAMES) {
      const card = lookup.find(name);
      expect([what, card && `${card.kind}/${card.key}`]).toEqual([what, id]);
    }
  });
});

describe("a name two enabled cards answer to alike", () => {
  let vault: TempVault | undefined;
  afterEach(() => vault?.remove());

  // An Obsidian vault's Characters/Ash.md and Lore/Ash.md: `read Ash` showed one and `update Ash`
  // wrote it, whichever the person meant.
  test("is a conflict naming both for every command that acts on one card, and each is found by its path", async () => {
    vault = tempVault({ "Characters/Ash.md": "A boy.\n", "Lore/Ash.md": "Grey residue.\n" });
    const v = openVault(vault.root);
    const err = (() => {
      try {
        findCard(v, "ash");
      } catch (e) {
        return e as LoreError;
      }
    })();
    expect(err?.code).toBe("conflict");
    expect(err?.message).toBe(
      '"ash" names 2 cards: entry/Characters/Ash, entry/Lore/Ash; name one of them so',
    );
    expect(findCard(v, "Lore/Ash").body).toBe("Grey residue.\n");
    expect(findCard(v, "entry/Characters/Ash").body).toBe("A boy.\n");
  });

  test("a disabled one of the two leaves the other to be found, as the lookup rule says", () => {
    vault = tempVault({
      "Characters/Ash.md": "A boy.\n",
      "Lore/Ash.md": cardText("enabled: false", "Grey residue.\n"),
    });
    expect(findCard(openVault(vault.root), "Ash").key).toBe("Characters/Ash");
  });
});

describe("check and recall agree on refs", () => {
  let vault: TempVault | undefined;
  afterEach(() => vault?.remove());

  // A ref check finds nothing wrong with is exactly a ref recall renders as a "see also" line.
  test.each([
    ["a key", "Bob", null],
    ["a title in another case", "robert", null],
    ["kind/key", "people/Bob", null],
    ["folder/key in another case", "EVENTS/the friday deploy", null],
    ["a file name", "Bob.md", null],
    ["a card nobody wrote", "Nobody", "dangling_ref"],
    ["a disabled card", "Ghost", "disabled_ref"],
    ["a disabled card by kind/key", "people/ghost", "disabled_ref"],
  ])("a ref to %s (%p)", async (_what, ref, finding) => {
    vault = tempVault({
      "people/Alice.md": cardText(
        `keywords: [Alice]\nrefs: [${JSON.stringify(ref)}]`,
        "## who\nThe sister.\n",
      ),
      "people/Bob.md": cardText("title: Robert\nkeywords: [Bob]", "## who\nBob keeps bees.\n"),
      "people/Ghost.md": cardText("keywords: [Ghost]\nenabled: false", "## who\nGone.\n"),
      "events/the Friday deploy.md": cardText("keywords: [deploy]", "## when\nFridays.\n"),
    });
    const index = loadIndex(openVault(vault.root));
    const found = checkCards(index.cards, index.broken)
      .filter((f) => f.card === "people/Alice" && f.code.endsWith("_ref"))
      .map((f): string => f.code);
    const engine = await openEngine(vault.root, { segmenter: false });
    const result = await engine.recall([{ role: "user", text: "Alice" }], { candidates: false });
    engine.close();
    expect(found).toEqual(finding === null ? [] : [finding]);
    expect(contextText(result).includes("see also:")).toBe(finding === null);
  });
});

describe("a path into a folder the vault skips", () => {
  let vault: TempVault | undefined;
  afterEach(() => vault?.remove());

  // `read books/eldoria/people/Rein` read the book's card as an `entry` of the vault's own, so
  // update_recent said entry cards have none, and a write went into the book through the vault's history.
  test.each([
    ["a book's card by its path", "books/eldoria/people/Rein"],
    ["a book's card as the root kind's", "entry/books/eldoria/people/Rein"],
    ["an archived card", "_archive/people/Ash"],
  ])("is no card of the vault's own: %s", (_what, name) => {
    vault = tempVault({
      "books/eldoria/people/Rein.md": cardText("keywords: [Rein]", "## recent\nOld.\n"),
      "_archive/people/Ash.md": cardText("keywords: [Ash]", "## who\nGone.\n"),
    });
    const err = (() => {
      try {
        findCard(openVault(vault.root), name);
      } catch (e) {
        return e as LoreError;
      }
    })();
    expect([err?.code, err?.message]).toEqual(["not_found", `no card named "${name}"`]);
  });
});
