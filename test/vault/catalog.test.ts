import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardPath, indexPath, loadIndex, openVault, updateCard } from "../../src/vault/index.ts";
import { fixture, tempVault, write } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

/** Rewrite a cached entry in index.json so we can tell whether loadIndex trusted it or re-parsed. */
function editCachedRow(rel: string, edit: (row: unknown[]) => void): void {
  const data = JSON.parse(fs.readFileSync(indexPath(vault), "utf8"));
  edit(data.rows.find((row: unknown[]) => row[0] === rel));
  fs.writeFileSync(indexPath(vault), JSON.stringify(data));
}

/** Row layout: [path, mtime, size, status, title, …] (src/vault/_index-file.ts). */
function poisonCachedTitle(rel: string, title: string): void {
  editCachedRow(rel, (row) => {
    row[4] = title;
  });
}

const titleOf = (rel: string) => loadIndex(vault).cards.find((c) => c.path === rel)?.title;

describe("the persisted index", () => {
  test("a cold load parses every card and writes index.json; a warm load parses none", () => {
    vault = tempVault();
    const cold = loadIndex(vault);
    expect(cold.parsed).toBe(6);
    expect(cold.cards).toHaveLength(6);
    expect(fs.existsSync(indexPath(vault))).toBe(true);
    const warm = loadIndex(vault);
    expect(warm.parsed).toBe(0);
    expect(warm.cards).toEqual(cold.cards);
    expect(warm.stamp).toBe(cold.stamp);
  });

  test("an unchanged card is served from the index without being read", () => {
    vault = tempVault();
    loadIndex(vault);
    poisonCachedTitle("people/Alice.md", "FROM THE CACHE");
    expect(titleOf("people/Alice.md")).toBe("FROM THE CACHE");
  });

  test("only the card whose file changed is parsed again", async () => {
    vault = tempVault();
    loadIndex(vault);
    poisonCachedTitle("places/the corner cafe.md", "FROM THE CACHE");
    await updateCard(vault, "people", "Alice", { frontmatter: { title: "Alice B." } });
    const index = loadIndex(vault);
    expect(index.parsed).toBe(1);
    expect(index.cards.find((c) => c.key === "Alice")?.title).toBe("Alice B.");
    expect(index.cards.find((c) => c.key === "the corner cafe")?.title).toBe("FROM THE CACHE");
  });

  test.each([
    ["its size", "size"],
    ["its mtime", "mtime"],
  ])("a card is parsed again when only %s differs from the cached entry", (_name, field) => {
    vault = tempVault();
    loadIndex(vault);
    editCachedRow("people/Alice.md", (row) => {
      row[4] = "FROM THE CACHE";
      if (field === "size") row[2] = (row[2] as number) + 1;
      else row[1] = "1";
    });
    const index = loadIndex(vault);
    expect(index.parsed).toBe(1);
    expect(index.cards.find((c) => c.key === "Alice")?.title).toBe("Alice");
  });

  test("the stamp changes whenever a card is added, edited or removed", () => {
    vault = tempVault();
    const stamps = [loadIndex(vault).stamp];
    write(vault, "people/Bob.md", "---\ntitle: Bob\n---\n");
    stamps.push(loadIndex(vault).stamp);
    write(vault, "people/Bob.md", "---\ntitle: Bobby\n---\n");
    stamps.push(loadIndex(vault).stamp);
    fs.rmSync(cardPath(vault, "people", "Bob"));
    stamps.push(loadIndex(vault).stamp);
    expect(new Set(stamps.slice(0, 3)).size).toBe(3);
    expect(stamps[3]).not.toBe(stamps[2]);
  });

  test("deleted files drop out of the index file too", () => {
    vault = tempVault();
    loadIndex(vault);
    fs.rmSync(cardPath(vault, "slang", "yak shaving"));
    expect(loadIndex(vault).cards.map((c) => c.key)).not.toContain("yak shaving");
    const data = JSON.parse(fs.readFileSync(indexPath(vault), "utf8"));
    expect(data.rows.map((row: unknown[]) => row[0])).not.toContain("slang/yak shaving.md");
  });

  test("index.json is not rewritten when nothing changed", () => {
    vault = tempVault();
    loadIndex(vault);
    const before = fs.statSync(indexPath(vault), { bigint: true }).mtimeNs;
    loadIndex(vault);
    expect(fs.statSync(indexPath(vault), { bigint: true }).mtimeNs).toBe(before);
  });

  test.each([
    ["deleted", () => fs.rmSync(indexPath(vault))],
    ["truncated", () => fs.writeFileSync(indexPath(vault), '{"format":1,"entr')],
    ["not an object", () => fs.writeFileSync(indexPath(vault), "[1,2,3]")],
    ["from another format", () => fs.writeFileSync(indexPath(vault), '{"format":99,"rows":[]}')],
    ["holding a malformed row", () => editCachedRow("people/Alice.md", (row) => row.splice(4, 3, 5))],
  ])("an index that is %s is rebuilt from the cards", (_name, damage) => {
    vault = tempVault();
    const good = loadIndex(vault);
    damage();
    const rebuilt = loadIndex(vault);
    expect(rebuilt.parsed).toBe(6);
    expect(rebuilt.cards).toEqual(good.cards);
    expect(loadIndex(vault).parsed).toBe(0);
  });

  test("a change to kinds.yaml rebuilds the index", () => {
    vault = tempVault();
    write(vault, "people/Pen.md", fixture("penpal.md"));
    const before = loadIndex(vault).cards.find((c) => c.key === "Pen")!;
    fs.writeFileSync(path.join(vault.root, "kinds.yaml"), "private_sections: [hobbies]\n");
    const after = loadIndex(openVault(vault.root));
    expect(after.parsed).toBe(7);
    expect(after.cards.find((c) => c.key === "Pen")!.publicChars).not.toBe(before.publicChars);
  });

  test("a previous result can stand in for index.json", () => {
    vault = tempVault();
    const first = loadIndex(vault);
    fs.rmSync(indexPath(vault));
    const again = loadIndex(vault, { previous: first });
    expect(again.parsed).toBe(0);
    expect(again.cards).toEqual(first.cards);
  });
});

describe("what the walk sees", () => {
  test("archive, state dir, dotfiles, temp files, non-Markdown files and nested folders are skipped", () => {
    vault = tempVault();
    write(vault, "_archive/people/Old.md", "---\ntitle: Old\n---\n");
    write(vault, ".lorecards/notes.md", "x");
    write(vault, "people/.draft.md", "x");
    write(vault, "people/.Alice.md.123.abcd.tmp", "x");
    write(vault, "people/notes.txt", "x");
    write(vault, "people/sub/Deep.md", "x");
    write(vault, "kinds.yaml", "");
    write(vault, "other/Stray.md", "x");
    const keys = loadIndex(vault).cards.map((c) => c.path);
    expect(keys).toEqual([
      "people/Alice.md",
      "events/the Friday deploy.md",
      "places/the corner cafe.md",
      "things/the green notebook.md",
      "slang/yak shaving.md",
      "about these cards.md",
    ]);
  });

  test("a broken card is reported with its error and the others still load", () => {
    vault = tempVault();
    write(vault, "people/Bad.md", fixture("alias-bomb.md"));
    write(vault, "people/Evil.md", fixture("js-frontmatter.md"));
    write(vault, "people/Bob.md", fixture("forgiving.md"));
    const index = loadIndex(vault);
    expect(index.cards).toHaveLength(7);
    expect(index.broken.map((b) => [b.path, b.kind, b.key])).toEqual([
      ["people/Bad.md", "people", "Bad"],
      ["people/Evil.md", "people", "Evil"],
    ]);
    expect(index.broken[0]!.error).toMatch(/alias/i);
    expect(index.broken[1]!.error).toContain("refused");
    expect(index.warnings.map((w) => w.path)).toEqual(["people/Bob.md"]);
    expect(loadIndex(vault).broken).toEqual(index.broken);
  });

  test("a file whose name is not a legal key is reported as broken", () => {
    vault = tempVault();
    write(vault, "people/con.md", "---\ntitle: con\n---\n");
    expect(loadIndex(vault).broken.map((b) => b.path)).toEqual(["people/con.md"]);
  });
});
