// A backup holds the vault's books (docs/BOOKS.md): each book's cards, its book.yaml and settings, and
// its own history, under books/NAME/; a restore puts them back. A manifest may name a book's files,
// and nothing else under books/.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { allowedPath, backupSources } from "../../src/backup/_contents.ts";
import { restoreBackup, vaultForBackup, writeBackup } from "../../src/backup/index.ts";
import { type TempVault, tempVault, vaultFiles } from "../support/card-vault.ts";

let source: TempVault;
const dirs: string[] = [];
afterEach(() => {
  source.remove();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("a backup of a vault with books", () => {
  test("holds each book's cards, book.yaml, kept card and settings, and a restore puts them back", async () => {
    source = tempVault({
      "people/Ann.md": "---\nkeywords: [ann]\n---\nAnn.\n",
      "books/seraphina/book.yaml": "characters: [Seraphina]\n",
      "books/seraphina/character.json": '{"spec": "chara_card_v3"}\n',
      "books/seraphina/settings.yaml": "budget_tokens: 900\n",
      "books/seraphina/glade.md": "---\nkeywords: [glade]\n---\nThe glade.\n",
      "books/seraphina/people/Mother.md": "---\nkeywords: [mother]\n---\nHer mother.\n",
    });
    fs.mkdirSync(path.join(source.root, "books/seraphina/.lorecards"));
    fs.writeFileSync(path.join(source.root, "books/seraphina/.lorecards/index.db"), "a cache");
    const paths = backupSources(vaultForBackup(source.root)).map((s) => s.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "books/seraphina/book.yaml",
        "books/seraphina/character.json",
        "books/seraphina/settings.yaml",
        "books/seraphina/glade.md",
        "books/seraphina/people/Mother.md",
      ]),
    );
    expect(paths).not.toContain("books/seraphina/.lorecards/index.db");
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backups-"));
    const into = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lc-restored-")), "vault");
    dirs.push(out, path.dirname(into));
    const { file } = await writeBackup(vaultForBackup(source.root), { dir: out });
    await restoreBackup(file, { target: into });
    const restored = vaultFiles(into);
    expect(restored["books/seraphina/people/Mother.md"]).toBe("---\nkeywords: [mother]\n---\nHer mother.\n");
    expect(restored["books/seraphina/book.yaml"]).toBe("characters: [Seraphina]\n");
    expect(restored["books/seraphina/character.json"]).toBe('{"spec": "chara_card_v3"}\n');
  });

  test.each([
    ["books/eldoria/glade.md", true],
    ["books/eldoria/book.yaml", true],
    ["books/eldoria/character.png", true],
    ["character.png", false],
    ["books/eldoria/.lorecards/history.db", true],
    ["books/eldoria/.lorecards/index.db", false],
    ["books/eldoria/.git/hooks/pre-commit", false],
    ["books/.hidden/glade.md", false],
    ["books/glade.md", true],
    ["books/eldoria/notes.txt", false],
  ])("a manifest may name %p: %p", (p, allowed) => {
    source = tempVault();
    expect(allowedPath(p)).toBe(allowed);
  });
});
