// Symbolic links inside the vault are never followed (README "Symbolic links"): not to read a card, not
// to list one, not to write, archive, import into or export from. The vault folder itself may be a link.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { checkCards } from "../../src/check/index.ts";
import { exportBook, importBook } from "../../src/interop/index.ts";
import {
  archiveCard,
  createCard,
  findCard,
  findLinks,
  initVault,
  listArchived,
  loadIndex,
  openVault,
  readCard,
  restoreCard,
  updateCard,
  type Vault,
} from "../../src/vault/index.ts";
import { type LinkedVault, linkedVault, linkTable, SECRET } from "../support/links.ts";
import { tempDir } from "../support/vault.ts";
import { rejectsWith } from "./_helpers.ts";

let linked: LinkedVault;
let vault: Vault;
beforeEach(() => {
  linked = linkedVault();
  vault = openVault(linked.root);
});
afterEach(() => linked.remove());

describe("reading", () => {
  test("the index lists no card file that is a link, and no card of a kind directory that is one", () => {
    const index = loadIndex(vault);
    const paths = [...index.cards.map((c) => c.path), ...index.broken.map((b) => b.path)];
    expect(paths.sort()).toEqual([
      "events/the Friday deploy.md",
      "people/Alice.md",
      "people/小林.md",
      "places/the corner cafe.md",
      "things/the blue notebook.md",
    ]);
  });

  test.each([
    ["a card file linking out of the vault", "people", "passwd", "people/passwd.md"],
    ["a card in a kind directory linking out", "slang", "zanzibar", "slang"],
    ["a card file linking to another card inside the vault", "people", "Ally", "people/Ally.md"],
  ])("reading %s is refused, naming the link", async (_, kind, key, link) => {
    const err = await rejectsWith("forbidden", () => readCard(vault, kind, key));
    expect(err.message).toContain(link);
    expect(err.message).not.toContain(SECRET);
  });

  test("finding a card by name does not read through a link either", async () => {
    await rejectsWith("forbidden", () => findCard(vault, "passwd"));
  });

  test("an archive folder that links out lists nothing", () => {
    expect(listArchived(vault)).toEqual([]);
  });

  test("the vault folder itself may be a link", () => {
    const dir = tempDir();
    const alias = path.join(dir, "vault");
    fs.symlinkSync(linked.root, alias);
    try {
      expect(readCard(openVault(alias), "people", "Alice").title).toBe("Alice");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("writing", () => {
  const draft = (kind: string, key: string) => ({
    kind,
    key,
    frontmatter: { title: key, keywords: [key] },
    body: "## who\nwritten\n",
  });

  test.each([
    ["creating a card in a kind directory that links out", () => createCard(vault, draft("slang", "new"))],
    ["creating a card where a link stands", () => createCard(vault, draft("people", "passwd"))],
    ["updating a linked card", () => updateCard(vault, "people", "passwd", { body: "gone\n" })],
    ["archiving into an archive folder that links out", () => archiveCard(vault, "people", "Alice")],
    ["restoring from an archive folder that links out", () => restoreCard(vault, "people", "zanzibar")],
  ])("%s is refused and changes nothing outside", async (_, write) => {
    const before = linked.outsideFiles();
    await rejectsWith("forbidden", write);
    expect(linked.outsideFiles()).toEqual(before);
    expect(fs.existsSync(path.join(linked.root, "people", "Alice.md"))).toBe(true);
  });

  test("init writes no example card through a linked kind directory", () => {
    const before = linked.outsideFiles();
    initVault(linked.root);
    expect(linked.outsideFiles()).toEqual(before);
  });

  test("an import into a kind whose directory is a link is refused and writes nothing outside", async () => {
    const before = linked.outsideFiles();
    const book = { entries: { "0": { key: ["harbor"], comment: "harbor", content: "The old harbor." } } };
    await rejectsWith("forbidden", () => importBook(vault, book, { filename: "book.json", kind: "slang" }));
    expect(linked.outsideFiles()).toEqual(before);
  });

  test("an import of a card whose file is a link is refused, and the link stays", async () => {
    const book = { entries: { "0": { key: ["pw"], comment: "passwd", content: "replaced" } } };
    await rejectsWith("forbidden", () =>
      importBook(vault, book, { filename: "book.json", kind: "people", force: true }),
    );
    expect(fs.lstatSync(path.join(linked.root, "people", "passwd.md")).isSymbolicLink()).toBe(true);
  });

  test("an export reads no card through a link", async () => {
    const file = await exportBook(vault, "st");
    const text = new TextDecoder().decode(file.bytes);
    expect(text).toContain("the corner cafe");
    expect(text).not.toContain(SECRET);
  });
});

describe("check", () => {
  test("every link in the vault is found, with its target", () => {
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
    expect(findLinks(vault).sort(byPath)).toEqual(linkTable(linked).sort(byPath));
  });

  test("each link is one error line naming the link and its target", () => {
    const findings = checkCards([], [], [], [{ path: "people/passwd.md", target: "/etc/passwd" }]);
    expect(findings).toEqual([
      {
        severity: "error",
        code: "symlink",
        card: "people/passwd.md",
        path: "people/passwd.md",
        detail: "is a symbolic link to /etc/passwd; lorecards never follows links inside the vault",
      },
    ]);
  });
});
