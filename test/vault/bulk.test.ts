// Many cards changed as one step (vault/bulk.ts) and a step taken back (vault/undo.ts): the history
// records a bulk action, an import or an undo as one step, one undo puts every card of it back byte for
// byte, and a card changed in between refuses the whole change with nothing written.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  archiveCard,
  bulkChange,
  cardPath,
  createCard,
  placeAll,
  readCard,
  readHistory,
  readStep,
  readSteps,
  recoverImports,
  STATE_DIR,
  undoStep,
  updateCard,
  type Vault,
} from "../../src/vault/index.ts";
import { rejectsWith, tempVault } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const read = (v: Vault, rel: string) => fs.readFileSync(path.join(v.root, rel), "utf8");
const exists = (v: Vault, rel: string) => fs.existsSync(path.join(v.root, rel));

/** Three people cards written through the vault, and their texts as written. */
async function threePeople(v: Vault): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  for (const key of ["Ann", "Bob", "Cy"]) {
    await createCard(v, {
      kind: "people",
      key,
      frontmatter: { title: key, keywords: [key.toLowerCase()], priority: 1 },
      body: `## who\n${key} # kept\n`,
    });
    texts[key] = read(v, `people/${key}.md`);
  }
  return texts;
}

const people = (...keys: string[]) => keys.map((key) => ({ kind: "people", key }));

describe("a bulk change", () => {
  test("disabling three cards is one step of three versions, with the note it was given", async () => {
    vault = tempVault(false);
    await threePeople(vault);
    const result = await bulkChange(
      vault,
      people("Ann", "Bob", "Cy"),
      { fields: () => ({ enabled: false }) },
      {
        writer: "ui",
        note: "disabled",
      },
    );
    expect(result.changed).toEqual(["people/Ann", "people/Bob", "people/Cy"]);
    for (const key of ["Ann", "Bob", "Cy"]) expect(readCard(vault, "people", key).enabled).toBe(false);
    // Only the field named changes: priority and the comment-like text stay.
    expect(read(vault, "people/Bob.md")).toContain("priority: 1");
    const [newest] = readSteps(vault, 10);
    expect(newest).toMatchObject({
      id: result.step!,
      action: "bulk",
      writer: "ui",
      cards: 3,
      kept: 3,
      note: "disabled",
    });
    expect(readStep(vault, result.step!)!.versions.map((v) => [v.key, v.action])).toEqual([
      ["Ann", "update"],
      ["Bob", "update"],
      ["Cy", "update"],
    ]);
  });

  test("cards already as asked are left alone and listed as unchanged", async () => {
    vault = tempVault(false);
    await threePeople(vault);
    await bulkChange(vault, people("Ann"), { fields: () => ({ context: "always" }) }, { note: "always" });
    const again = await bulkChange(
      vault,
      people("Ann", "Bob"),
      { fields: () => ({ context: "always" }) },
      {
        note: "always",
      },
    );
    expect([again.changed, again.unchanged]).toEqual([["people/Bob"], ["people/Ann"]]);
    expect(readStep(vault, again.step!)!.versions).toHaveLength(1);
  });

  test("a card changed since it was read refuses the whole change, naming it, and nothing is written", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    const seen = readCard(vault, "people", "Bob").mtime;
    await updateCard(vault, "people", "Bob", { body: "## who\nBob, edited elsewhere.\n" });
    const edited = read(vault, "people/Bob.md");
    const err = await rejectsWith("conflict", () =>
      bulkChange(
        vault,
        [...people("Ann"), { kind: "people", key: "Bob", mtime: seen }],
        { archive: true },
        {
          note: "archived",
        },
      ),
    );
    expect(err.message).toContain("people/Bob: changed since it was read");
    expect(read(vault, "people/Ann.md")).toBe(texts.Ann!);
    expect(read(vault, "people/Bob.md")).toBe(edited);
    expect(exists(vault, "_archive")).toBe(false);
  });

  test("archiving moves the cards into the archive in one step, and one undo brings them all back", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    const { step } = await bulkChange(vault, people("Ann", "Bob"), { archive: true }, { note: "archived" });
    expect([exists(vault, "people/Ann.md"), read(vault, "_archive/people/Ann.md")]).toEqual([
      false,
      texts.Ann!,
    ]);
    expect(readStep(vault, step!)!.versions.map((v) => [v.key, v.action, v.after])).toEqual([
      ["Ann", "archive", null],
      ["Bob", "archive", null],
    ]);
    const undone = await undoStep(vault, step!, { writer: "ui" });
    expect(read(vault, "people/Ann.md")).toBe(texts.Ann!);
    expect(read(vault, "people/Bob.md")).toBe(texts.Bob!);
    // A restore, not a copy: the archive no longer holds them.
    expect(fs.readdirSync(path.join(vault.root, "_archive", "people"))).toEqual([]);
    expect(readSteps(vault, 1)[0]).toMatchObject({
      id: undone.step!,
      action: "undo",
      undoes: step,
      note: "archived",
    });
  });

  test("a kind change moves the files, the kind line follows, and an undo moves them back", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    const { step } = await bulkChange(
      vault,
      people("Ann", "Cy"),
      { kind: "place" },
      { note: "kind → place" },
    );
    expect(exists(vault, "people/Ann.md")).toBe(false);
    expect(read(vault, "places/Ann.md")).toContain("kind: place");
    expect(readCard(vault, "place", "Cy").title).toBe("Cy");
    await undoStep(vault, step!);
    expect([read(vault, "people/Ann.md"), read(vault, "people/Cy.md")]).toEqual([texts.Ann!, texts.Cy!]);
    expect([exists(vault, "places/Ann.md"), exists(vault, "_archive")]).toEqual([false, false]);
  });

  test("a kind change onto a name that is taken refuses the whole change", async () => {
    vault = tempVault(false);
    await threePeople(vault);
    fs.mkdirSync(path.join(vault.root, "places"));
    fs.writeFileSync(path.join(vault.root, "places", "Bob.md"), "---\ntitle: Bob's\n---\n");
    const err = await rejectsWith("conflict", () =>
      bulkChange(vault, people("Ann", "Bob"), { kind: "place" }, { note: "kind" }),
    );
    expect(err.message).toContain('people/Bob: a place card named "Bob" already exists');
    expect(exists(vault, "people/Ann.md")).toBe(true);
  });
});

describe("undo", () => {
  test("an undo of a bulk edit puts every card back byte for byte, and undoing the undo redoes it", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    const { step } = await bulkChange(
      vault,
      people("Ann", "Bob", "Cy"),
      { fields: () => ({ tags: ["draft"] }) },
      {
        note: "tagged draft",
      },
    );
    const tagged = read(vault, "people/Cy.md");
    const undone = await undoStep(vault, step!);
    for (const key of ["Ann", "Bob", "Cy"]) expect(read(vault, `people/${key}.md`)).toBe(texts[key]!);
    expect(readHistory(vault, "people", "Ann")[0]).toMatchObject({ action: "undo", step: undone.step });
    await undoStep(vault, undone.step!);
    expect(read(vault, "people/Cy.md")).toBe(tagged);
  });

  test("an import is one step: its undo archives the cards it made and puts back the ones it replaced", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    const step = await placeAll(vault, [
      { target: cardPath(vault, "people", "Ann"), text: "---\ntitle: Ann\n---\nimported\n", replaces: true },
      { target: cardPath(vault, "people", "Dee"), text: "---\ntitle: Dee\n---\nimported\n", replaces: false },
    ]);
    expect(readSteps(vault, 1)[0]).toMatchObject({ id: step!, action: "import", cards: 2 });
    await undoStep(vault, step!);
    expect(read(vault, "people/Ann.md")).toBe(texts.Ann!);
    expect([exists(vault, "people/Dee.md"), read(vault, "_archive/people/Dee.md")]).toEqual([
      false,
      "---\ntitle: Dee\n---\nimported\n",
    ]);
  });

  test("a card written since the step refuses the undo, naming it, and changes nothing", async () => {
    vault = tempVault(false);
    await threePeople(vault);
    const { step } = await bulkChange(
      vault,
      people("Ann", "Bob"),
      { fields: () => ({ enabled: false }) },
      {
        note: "disabled",
      },
    );
    await updateCard(vault, "people", "Bob", { body: "## who\nlater\n" });
    const err = await rejectsWith("conflict", () => undoStep(vault, step!));
    expect(err.message).toContain(`people/Bob: changed since step #${step}`);
    expect(readCard(vault, "people", "Ann").enabled).toBe(false);
  });

  test("a single save is a step of its own, and an unknown step is not found", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    await archiveCard(vault, "people", "Cy");
    const [archived] = readSteps(vault, 1);
    expect(archived).toMatchObject({ action: "archive", cards: 1 });
    await undoStep(vault, archived!.id);
    expect(read(vault, "people/Cy.md")).toBe(texts.Cy!);
    await rejectsWith("not_found", () => undoStep(vault, 9999));
  });

  test("a bulk archive killed after its plan counted is finished by the next process, as one step", async () => {
    vault = tempVault(false);
    const texts = await threePeople(vault);
    // What a process killed between its moves and its removals leaves: the archive copy is in place,
    // the live card not yet moved aside.
    const stage = path.join(vault.root, STATE_DIR, "import-1-abcd");
    fs.mkdirSync(path.join(stage, "old"), { recursive: true });
    fs.mkdirSync(path.join(vault.root, "_archive", "people"), { recursive: true });
    fs.writeFileSync(path.join(vault.root, "_archive", "people", "Ann.md"), texts.Ann!);
    const plan = {
      moves: [],
      removes: [{ target: "people/Ann.md", aside: "old/r0.md", action: "archive" }],
      record: { writer: "ui", action: "update", step: { action: "bulk", note: "archived" } },
    };
    fs.writeFileSync(path.join(stage, "plan.json"), JSON.stringify(plan));
    expect(recoverImports(vault)).toBe(1);
    expect(exists(vault, "people/Ann.md")).toBe(false);
    expect(readSteps(vault, 1)[0]).toMatchObject({
      action: "bulk",
      writer: "ui",
      note: "archived",
      cards: 1,
    });
    expect(readHistory(vault, "people", "Ann")[0]).toMatchObject({ action: "archive", before: texts.Ann! });
  });
});

describe("a history file from before steps", () => {
  test("is migrated: each version it holds becomes a step of its own, and new writes are steps", async () => {
    vault = tempVault(false);
    await threePeople(vault);
    const file = path.join(vault.root, STATE_DIR, "history.db");
    // Take the file back to schema 1, as an older binary left it.
    const db = new Database(file);
    db.exec(
      "DROP TABLE steps; DROP INDEX versions_step; ALTER TABLE versions DROP COLUMN step; PRAGMA user_version = 1",
    );
    db.close();
    expect(readSteps(vault, 10).map((s) => [s.id, s.action, s.cards])).toEqual([
      [3, "create", 1],
      [2, "create", 1],
      [1, "create", 1],
    ]);
    await archiveCard(vault, "people", "Bob");
    expect(readSteps(vault, 1)[0]).toMatchObject({ id: 4, action: "archive" });
  });
});
