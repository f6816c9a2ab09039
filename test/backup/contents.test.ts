// Which files a backup reads from a vault: the cards wherever they sit (every Markdown file but in a
// hidden folder, as the vault reads them), the archive, both settings files and the state that is not
// a cache; never a link, a temp file, a cache, the lock, the backups or a file that is not Markdown.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { backupSources, vaultForBackup } from "../../src/backup/_contents.ts";
import { type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault;
afterEach(() => vault.remove());

const card = "---\nkeywords: [x]\n---\nx\n";
const sources = () =>
  backupSources(vaultForBackup(vault.root)).map((s) => `${s.path}${s.sqlite ? " (sqlite)" : ""}`);

describe("what a backup reads", () => {
  test("cards, the archive, the settings and the state that is not a cache, and nothing else", () => {
    vault = tempVault({
      "people/Alice.md": card,
      "guide.md": card,
      "_archive/people/Bob~2.md": card,
      "_archive/Old entry.md": card,
      "kinds.yaml": "private_sections: [diary]\n",
      "settings.yaml": "user: Ann\n",
      "notes.txt": "not a card",
      "people/.Alice.md.4242.0a1b2c3d.tmp": "a killed write",
      "people/portrait.png": "not a card",
      "people/drafts/Carol.md": "the people card drafts/Carol",
      "Characters/Minor/Vell.md": "a notes app's own folders: cards of the vault's root kind",
      "Templates/Character.md": "a note the vault skips, the person's all the same",
      ".git/HEAD.md": "hidden",
      ".obsidian/workspace.md": "hidden",
      ".lorecards/state.db": "",
      ".lorecards/state.db-wal": "",
      ".lorecards/history.db": "",
      ".lorecards/index.db": "",
      ".lorecards/matcher.bin": "",
      ".lorecards/marker-secret": "",
      ".lorecards/hits.jsonl": "",
      ".lorecards/lock": "",
      ".lorecards/backups/daily-20250101T000000Z.tar.gz": "",
      ".lorecards/import-1/plan.json": "",
    });
    fs.symlinkSync(path.join(vault.root, "people", "Alice.md"), path.join(vault.root, "people", "Link.md"));
    fs.symlinkSync(path.join(vault.root, "people"), path.join(vault.root, "things-link"));
    expect(sources()).toEqual([
      ".lorecards/history.db (sqlite)",
      ".lorecards/hits.jsonl",
      ".lorecards/marker-secret",
      ".lorecards/state.db (sqlite)",
      "Characters/Minor/Vell.md",
      "Templates/Character.md",
      "_archive/Old entry.md",
      "_archive/people/Bob~2.md",
      "guide.md",
      "kinds.yaml",
      "people/Alice.md",
      "people/drafts/Carol.md",
      "settings.yaml",
    ]);
  });

  test("a kind folder kinds.yaml renamed is read; when kinds.yaml does not parse, every folder is", () => {
    vault = tempVault({ "kinds.yaml": "dirs: { people: personnes }\n", "personnes/Alice.md": card });
    expect(sources()).toEqual(["kinds.yaml", "personnes/Alice.md"]);
    vault.write("kinds.yaml", "dirs: [not, a, mapping\n");
    expect(sources()).toEqual(["kinds.yaml", "personnes/Alice.md"]);
  });
});
