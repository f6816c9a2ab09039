// The folders a note app keeps for templates are read from its own settings (card/note-apps.ts), and
// only a folder inside the vault counts: no setting, an empty one, one outside the vault or absolute
// skips nothing.
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardAt, loadKindsConfig } from "../../src/card/index.ts";
import { noteAppFolders } from "../../src/card/note-apps.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) removeDir(r);
});

/** A vault whose `.obsidian/templates.json` holds `settings` (raw text), or none when undefined. */
function vaultWith(settings?: string, templater?: string): string {
  const root = tempDir();
  roots.push(root);
  if (settings !== undefined) {
    fs.mkdirSync(path.join(root, ".obsidian"), { recursive: true });
    fs.writeFileSync(path.join(root, ".obsidian", "templates.json"), settings);
  }
  if (templater !== undefined) {
    const dir = path.join(root, ".obsidian", "plugins", "templater-obsidian");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "data.json"), templater);
  }
  return root;
}

describe("a note app's templates folder", () => {
  test.each([
    ["no settings file", undefined, undefined, []],
    ["Obsidian's folder", '{"folder":"Templates"}', undefined, ["Templates"]],
    [
      "a nested folder with slashes around it",
      '{"folder":"/Meta/Templates/"}',
      undefined,
      ["Meta/Templates"],
    ],
    ["an empty folder setting", '{"folder":""}', undefined, []],
    ["a folder outside the vault", '{"folder":"../elsewhere"}', undefined, []],
    ["settings that are no JSON", "{folder:", undefined, []],
    ["settings that are JSON null", "null", undefined, []],
    [
      "Templater's folder beside Obsidian's",
      '{"folder":"Templates"}',
      '{"templates_folder":"tp"}',
      ["Templates", "tp"],
    ],
    [
      "the same folder named twice",
      '{"folder":"Templates"}',
      '{"templates_folder":"Templates"}',
      ["Templates"],
    ],
  ])("%s", (_name, settings, templater, dirs) => {
    expect(noteAppFolders(vaultWith(settings, templater)).map((s) => s.dir)).toEqual(dirs);
  });

  test("holds no cards, at any depth, while the folders beside it do", () => {
    const kinds = loadKindsConfig(vaultWith('{"folder":"Templates"}'));
    expect(cardAt(kinds, "Templates/Person.md")).toBeUndefined();
    expect(cardAt(kinds, "Templates/people/Person.md")).toBeUndefined();
    expect(cardAt(kinds, "Templates2/Person.md")?.key).toBe("Templates2/Person");
    expect(cardAt(kinds, "people/Rin.md")?.key).toBe("Rin");
  });
});
