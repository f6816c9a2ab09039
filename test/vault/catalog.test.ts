import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardPath, indexPath, loadIndex, openVault } from "../../src/vault/index.ts";
import { backdate } from "../support/card-vault.ts";
import { editStoredRow, fixture, storedRow, tempVault, withIndexDb, write } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

/** The example vault, settled in the past so a second load trusts its rows (src/vault/catalog.ts). */
function settledVault(): ReturnType<typeof tempVault> {
  const v = tempVault();
  backdate(v.root);
  return v;
}

function poisonStoredTitle(rel: string, title: string): void {
  editStoredRow(vault, rel, (row) => {
    row[4] = title;
  });
}

const titleOf = (rel: string, check?: "all") =>
  loadIndex(vault, { check }).cards.find((c) => c.path === rel)?.title;

describe("the persisted index", () => {
  test("a cold load parses every card and writes index.db; a warm load parses none", () => {
    vault = settledVault();
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
    vault = settledVault();
    loadIndex(vault);
    poisonStoredTitle("people/Alice.md", "FROM THE CACHE");
    expect(titleOf("people/Alice.md")).toBe("FROM THE CACHE");
    expect(titleOf("people/Alice.md", "all")).toBe("FROM THE CACHE");
  });

  test("only the card whose file changed is parsed again", async () => {
    vault = settledVault();
    loadIndex(vault);
    poisonStoredTitle("places/the corner cafe.md", "FROM THE CACHE");
    // Saved the way an editor does: a temp file renamed over the card.
    const file = cardPath(vault, "people", "Alice");
    fs.writeFileSync(`${file}.tmp~`, "---\ntitle: Alice B.\n---\n");
    fs.renameSync(`${file}.tmp~`, file);
    const index = loadIndex(vault);
    expect(index.parsed).toBe(1);
    expect(index.cards.find((c) => c.key === "Alice")?.title).toBe("Alice B.");
    expect(index.cards.find((c) => c.key === "the corner cafe")?.title).toBe("FROM THE CACHE");
  });

  test.each([
    ["its size", "size"],
    ["its mtime", "ms"],
  ])("a full check parses a card again when only %s differs from the stored one", (_name, field) => {
    vault = settledVault();
    loadIndex(vault);
    poisonStoredTitle("people/Alice.md", "FROM THE CACHE");
    withIndexDb(vault, (db) =>
      db
        .query(`UPDATE cards SET ${field} = ${field === "size" ? "size + 1" : "1"} WHERE path = ?`)
        .run("people/Alice.md"),
    );
    const index = loadIndex(vault, { check: "all" });
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
    vault = settledVault();
    loadIndex(vault);
    expect(storedRow(vault, "slang/yak shaving.md")).toBeDefined();
    fs.rmSync(cardPath(vault, "slang", "yak shaving"));
    expect(loadIndex(vault).cards.map((c) => c.key)).not.toContain("yak shaving");
    expect(storedRow(vault, "slang/yak shaving.md")).toBeUndefined();
  });

  test.each([
    ["deleted", () => fs.rmSync(indexPath(vault))],
    ["not a database", () => fs.writeFileSync(indexPath(vault), "not a database, just text ".repeat(400))],
    ["of another layout", () => withIndexDb(vault, (db) => db.exec("PRAGMA user_version = 9901"))],
    [
      "for another kind table",
      () => withIndexDb(vault, (db) => db.query("UPDATE meta SET value = '{}' WHERE name = 'kinds'").run()),
    ],
  ])("an index that is %s is rebuilt from the cards", (_name, damage) => {
    vault = settledVault();
    const good = loadIndex(vault);
    damage();
    for (const side of ["-wal", "-shm"])
      if (_name === "not a database") fs.rmSync(`${indexPath(vault)}${side}`, { force: true });
    const rebuilt = loadIndex(vault);
    expect(rebuilt.parsed).toBe(6);
    expect(rebuilt.cards).toEqual(good.cards);
    expect(loadIndex(vault).parsed).toBe(0);
  });

  test("a damaged row is not served, and the card is parsed again by the next load", () => {
    vault = settledVault();
    const good = loadIndex(vault);
    withIndexDb(vault, (db) =>
      db.query("UPDATE cards SET row = '[1, 2' WHERE path = ?").run("people/Alice.md"),
    );
    expect(loadIndex(vault).entries.meta("people/Alice.md")).toBeUndefined();
    const next = loadIndex(vault);
    expect(next.parsed).toBe(1);
    expect(next.cards).toEqual(good.cards);
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

  test("a previous result lends its connection to the next load", () => {
    vault = settledVault();
    const first = loadIndex(vault);
    const again = loadIndex(vault, { previous: first });
    expect(again.db).toBe(first.db);
    expect(again.parsed).toBe(0);
    expect(again.cards).toEqual(first.cards);
  });

  test("a load that must not write works on a copy: index.db is neither created nor changed", () => {
    vault = settledVault();
    expect(loadIndex(vault, { persist: false }).cards).toHaveLength(6);
    expect(fs.existsSync(indexPath(vault))).toBe(false);
    loadIndex(vault);
    write(vault, "people/Bob.md", "---\ntitle: Bob\n---\n");
    expect(loadIndex(vault, { persist: false }).cards).toHaveLength(7);
    expect(storedRow(vault, "people/Bob.md")).toBeUndefined();
  });
});

describe("what the walk sees", () => {
  test("archive, state dir, hidden folders, dotfiles, temp files and non-Markdown files are skipped; sub-folders are not", () => {
    vault = tempVault();
    write(vault, "_archive/people/Old.md", "---\ntitle: Old\n---\n");
    write(vault, ".lorecards/notes.md", "x");
    write(vault, "people/.draft.md", "x");
    write(vault, "people/.Alice.md.123.abcd.tmp", "x");
    write(vault, "people/notes.txt", "x");
    write(vault, "people/sub/Deep.md", "x");
    write(vault, "people/.obsidian/Plugin.md", "x");
    write(vault, ".trash/Gone.md", "x");
    write(vault, "kinds.yaml", "");
    write(vault, "other/Stray.md", "x");
    const cards = loadIndex(vault).cards.map((c) => [c.path, c.kind, c.key]);
    expect(cards).toEqual([
      ["people/Alice.md", "people", "Alice"],
      ["people/sub/Deep.md", "people", "sub/Deep"],
      ["events/the Friday deploy.md", "event", "the Friday deploy"],
      ["places/the corner cafe.md", "place", "the corner cafe"],
      ["things/the green notebook.md", "thing", "the green notebook"],
      ["slang/yak shaving.md", "slang", "yak shaving"],
      ["about these cards.md", "entry", "about these cards"],
      ["other/Stray.md", "entry", "other/Stray"],
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
