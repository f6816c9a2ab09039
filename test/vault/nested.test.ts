// Cards in sub-folders (docs/CARDS.md "Card format"): a note in a folder below a kind's folder is a card
// of that kind, at any depth, as people keep notes (Obsidian, Logseq, a writer's world folder), and a
// load sees a change in any such folder as it sees one in a kind folder: by the folder's mtime.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { contextText, openEngine } from "../../src/recall/index.ts";
import { loadIndex, openVault, updateCard, type Vault } from "../../src/vault/index.ts";
import { backdate, cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let temp: TempVault | undefined;
afterEach(() => temp?.remove());

const card = (title: string) => cardText(`title: ${title}\nkeywords: [${title}]`, `${title}'s text.\n`);

/** A vault with cards at several depths, settled and indexed. */
function nestedVault(): Vault {
  temp = tempVault({
    "people/Alice.md": card("Alice"),
    "people/family/Rin.md": card("Rin"),
    "people/family/cousins/Kai.md": card("Kai"),
    "world/places/Harbor.md": card("Harbor"),
  });
  backdate(temp.root);
  const vault = openVault(temp.root);
  loadIndex(vault, { check: "all" });
  return vault;
}

const ids = (vault: Vault) => loadIndex(vault).cards.map((c) => `${c.kind}/${c.key}`);

describe("cards in sub-folders", () => {
  test("are cards of their kind folder's kind, at any depth; the root's other folders hold entries", () => {
    const vault = nestedVault();
    expect(ids(vault)).toEqual([
      "people/Alice",
      "people/family/Rin",
      "people/family/cousins/Kai",
      "entry/world/places/Harbor",
    ]);
    const rin = loadIndex(vault).cards.find((c) => c.key === "family/Rin")!;
    expect([rin.path, rin.title]).toEqual(["people/family/Rin.md", "Rin"]);
  });

  test("a card without a title of its own is called by its file name, not its folders", () => {
    temp = tempVault({ "people/family/Mei.md": cardText("keywords: [Mei]", "Text.\n") });
    expect(loadIndex(openVault(temp.root)).cards.find((c) => c.key === "family/Mei")?.title).toBe("Mei");
  });

  test.each([
    [
      "a card created in a known sub-folder",
      (root: string) => fs.writeFileSync(path.join(root, "people/family/Mei.md"), card("Mei")),
      "people/family/Mei",
    ],
    [
      "a new sub-folder with its cards",
      (root: string) => {
        fs.mkdirSync(path.join(root, "people/friends/school"), { recursive: true });
        fs.writeFileSync(path.join(root, "people/friends/school/Jo.md"), card("Jo"));
      },
      "people/friends/school/Jo",
    ],
    [
      "a folder moved in from outside the vault",
      (root: string) => {
        const outside = `${root}-outside`;
        fs.mkdirSync(`${outside}/crew`, { recursive: true });
        fs.writeFileSync(`${outside}/crew/Ash.md`, card("Ash"));
        fs.renameSync(`${outside}/crew`, path.join(root, "people/family/cousins/crew"));
        fs.rmSync(outside, { recursive: true });
      },
      "people/family/cousins/crew/Ash",
    ],
  ])("%s is seen by the very next load", (_name, change, id) => {
    const vault = nestedVault();
    change(vault.root);
    expect(ids(vault)).toContain(id);
  });

  test("a sub-folder deleted with its cards takes them out, and is forgotten", () => {
    const vault = nestedVault();
    fs.rmSync(path.join(vault.root, "people/family"), { recursive: true });
    expect(ids(vault)).toEqual(["people/Alice", "entry/world/places/Harbor"]);
    fs.mkdirSync(path.join(vault.root, "people/family"));
    fs.writeFileSync(path.join(vault.root, "people/family/Rin.md"), card("Rin again"));
    expect(loadIndex(vault).cards.find((c) => c.key === "family/Rin")?.title).toBe("Rin again");
  });

  test("a sub-folder renamed moves its cards to their new keys", () => {
    const vault = nestedVault();
    fs.renameSync(path.join(vault.root, "people/family"), path.join(vault.root, "people/kin"));
    expect(ids(vault)).toEqual([
      "people/Alice",
      "people/kin/Rin",
      "people/kin/cousins/Kai",
      "entry/world/places/Harbor",
    ]);
  });

  test("hidden folders, the archive and lorecards' own folder hold no cards", () => {
    temp = tempVault({
      "people/.obsidian/workspace.md": card("Workspace"),
      ".trash/Old.md": card("Old"),
      "_archive/people/Gone.md": card("Gone"),
      ".lorecards/x.md": card("X"),
      "people/family/Rin.md": card("Rin"),
    });
    expect(loadIndex(openVault(temp.root)).cards.map((c) => c.path)).toEqual(["people/family/Rin.md"]);
  });

  test("a card in a sub-folder fires, is read and is edited where it lives", async () => {
    const vault = nestedVault();
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([{ role: "user", text: "How is Rin?" }]);
    expect(contextText(r)).toContain("### Rin [people]\nRin's text.");
    await updateCard(vault, "people", "family/Rin", { body: "Rin moved to Osaka.\n" });
    expect(fs.readFileSync(path.join(vault.root, "people/family/Rin.md"), "utf8")).toContain(
      "Rin moved to Osaka.",
    );
    engine.close();
  });
});
