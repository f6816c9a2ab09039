// Every file of a vault accounted for (vault/census.ts): card files, lorecards' settings, and what is
// skipped with its reason, a skipped folder once.
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openVault, vaultCensus } from "../../src/vault/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let temp: TempVault | undefined;
afterEach(() => temp?.remove());

test("a folder of notes: cards at any depth, bare notes, attachments, hidden files and folders, settings", () => {
  temp = tempVault({
    "people/family/Rin.md": cardText("keywords: [Rin]", "Rin.\n"),
    "world/Harbor.md": "Harbor, with no frontmatter.\n",
    "bom.md": "\uFEFF---\ntitle: Bom\n---\nText.\n",
    "world/map.png": "PNG",
    README: "no extension",
    ".obsidian/app.json": "{}",
    ".obsidian/Plugin.md": "x",
    "_archive/people/Old.md": cardText("title: Old", "x"),
    ".DS_Store": "x",
    "people/Ann.md.123.abcd.tmp": "x",
    "settings.yaml": "char: Ann\n",
    "guide.md": "A guide.\n",
  });
  fs.symlinkSync("/etc", path.join(temp.root, "places/etc"));
  const census = vaultCensus(openVault(temp.root));
  expect(census.cardFiles).toBe(3);
  expect(census.bare).toEqual(["world/Harbor.md"]);
  expect(census.settings.sort()).toEqual(["guide.md", "settings.yaml"]);
  expect(census.skipped).toEqual([
    { path: ".DS_Store", reason: "a hidden file" },
    { path: ".obsidian/", reason: "a hidden folder" },
    { path: "README", reason: "not a Markdown file (no extension): cards are .md files" },
    { path: "_archive/", reason: "archived cards (lorecards restore brings one back)" },
    {
      path: "people/Ann.md.123.abcd.tmp",
      reason: "a temp file (an interrupted save; check removes old ones)",
    },
    { path: "places/etc", reason: "a symbolic link: lorecards never follows links in the vault" },
    { path: "world/map.png", reason: "not a Markdown file (.png): cards are .md files" },
  ]);
});
