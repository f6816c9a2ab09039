// A folder of notes as people keep one (an Obsidian vault: notes in nested folders, notes without
// frontmatter, attachments, the editor's hidden folder, its templates folder) pointed at with the
// defaults, through the compiled binary: `check` accounts for every file, and the notes fire where they
// live; a template (named in .obsidian/templates.json) is no note and never fires.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault;

beforeAll(async () => {
  await ensureBinary();
  vault = tempVault({
    "people/family/Rin.md": "---\naliases: [Rinny]\n---\nRin is my cousin; she lives by the harbor.\n",
    "people/family/cousins/Kai.md": "Kai, Rin's brother, fixes boats.\n",
    "world/places/Saltmarsh.md": "---\ntags: [place]\n---\nThe town on the coast.\n",
    "world/places/map.png": "\x89PNG",
    "attachments/letter.pdf": "%PDF-1.4",
    ".obsidian/workspace.json": "{}",
    ".obsidian/templates.json": '{"folder":"Templates"}',
    "Templates/Person.md": "---\ntags: [person]\n---\n# {{title}}\n",
    ".obsidian/snippets/readme.md": "not a note",
    ".trash/Old idea.md": "thrown away",
    "Daily note.md": "Went to Saltmarsh today.\n",
  });
});
afterAll(() => vault.remove());

/** Every file under the vault, as paths relative to it (folders of skipped entries cover their files). */
function allFiles(root: string, dir = ""): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir === "" ? e.name : `${dir}/${e.name}`;
    return e.isDirectory() ? allFiles(root, rel) : [rel];
  });
}

describe("a folder of notes, with the defaults", () => {
  test("check accounts for every file: each is a card, a setting, or skipped with its reason", async () => {
    const r = await runBinary(["check", "--vault", vault.root, "--json"]);
    expect(r.code).toBe(0);
    const { cards, files } = JSON.parse(r.stdout) as {
      cards: number;
      files: {
        card_files: number;
        bare: string[];
        settings: string[];
        skipped: { path: string; reason: string }[];
      };
    };
    expect(cards).toBe(4);
    expect(files.card_files).toBe(4);
    expect(files.bare.sort()).toEqual(["Daily note.md", "people/family/cousins/Kai.md"]);
    const covered = (f: string) =>
      files.settings.some((s) => f === s || (s.endsWith("/") && f.startsWith(s))) ||
      files.skipped.some((s) => f === s.path || (s.path.endsWith("/") && f.startsWith(s.path)));
    const notCards = allFiles(vault.root).filter(
      (f) => !f.endsWith(".md") || f.startsWith(".") || f.includes("/."),
    );
    expect(notCards.filter((f) => !covered(f))).toEqual([]);
    expect(files.skipped.map((s) => s.path).sort()).toEqual([
      ".obsidian/",
      ".trash/",
      "Templates/",
      "attachments/letter.pdf",
      "world/places/map.png",
    ]);
  });

  test("check says in words what is not a card and why", async () => {
    const r = await runBinary(["check", "--vault", vault.root]);
    expect(r.stdout).toContain("a hidden folder: .obsidian/, .trash/");
    expect(r.stdout).toContain("not a Markdown file (.pdf): cards are .md files: attachments/letter.pdf");
    expect(r.stdout).toContain("have no frontmatter, so each fires on its file name only");
    expect(r.stdout).toContain(
      "Obsidian's templates folder (.obsidian/templates.json): templates, not notes: Templates/",
    );
  });

  test("notes in nested folders fire, with or without frontmatter", async () => {
    const r = await runBinary([
      "try",
      "--vault",
      vault.root,
      "--json",
      "how are Rinny and Kai doing in Saltmarsh? Ask the person at the harbor.",
    ]);
    expect(r.code).toBe(0);
    const fired = (JSON.parse(r.stdout) as { fired: { key: string; kind: string; in_budget: boolean }[] })
      .fired;
    expect(fired.map((f) => `${f.kind}/${f.key}`).sort()).toEqual([
      "entry/world/places/Saltmarsh",
      "people/family/Rin",
      "people/family/cousins/Kai",
    ]);
  });

  test("a note in a nested folder is read by its name", async () => {
    const r = await runBinary(["read", "--vault", vault.root, "Rin"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Rin is my cousin");
  });
});
