// Cards imported before issue 11: the old mapping swapped SillyTavern's selectiveLogic 1 and 3 and
// left every other setting unread under st:/card:. `staleImport` finds them (for check) and
// `repairImports` maps them again in one step. The card files below are written as the old import
// wrote them (its entryToDraft: title, keywords, secondary, scan_depth, priority, enabled, st/card).
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { repairLines } from "../../src/cli/repair.ts";
import { exportBook, importBook, repairImports, staleImports } from "../../src/interop/index.ts";
import { initVault, openVault, readCard, type Vault } from "../../src/vault/index.ts";
import { json, tempDir } from "./_support.ts";

type Raw = Record<string, unknown>;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function newVault(files: Record<string, string>): Vault {
  const root = path.join(tempDir(), "vault");
  dirs.push(path.dirname(root));
  initVault(root);
  for (const f of fs.readdirSync(root)) if (f.endsWith(".md")) fs.rmSync(path.join(root, f));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return openVault(root);
}

/** An old import of a World Info entry with selectiveLogic 1 (NOT ALL): the old code made it `all`. */
const NOT_ALL_OLD = `---
kind: entry
title: Harbor
keywords:
  - harbor
secondary:
  all:
    - fog
    - night
priority: 100
enabled: true
# my note: keep this
st:
  uid: 0
  constant: true
  position: 4
  depth: 2
  role: 1
  probability: 40
  useProbability: true
  caseSensitive: null
---
The old harbor.
`;

/** selectiveLogic 3 (AND ALL): the old code made it \`not\` and kept the 3 under st:. */
const AND_ALL_OLD = `---
kind: entry
title: Lantern
keywords:
  - lantern
secondary:
  not:
    - green
scan_depth: 2
priority: 5
enabled: true
st:
  uid: 1
  selectiveLogic: 3
  scanDepth: 3
---
A green lantern.
`;

/** A character book entry (SillyTavern-made) the old code imported: logic 1 under card.extensions. */
const BOOK_OLD = `---
kind: entry
title: glade
keywords:
  - glade
secondary:
  all:
    - night
priority: 100
enabled: true
card:
  id: 2
  constant: false
  use_regex: true
  position: before_char
  extensions:
    selectiveLogic: 1
    position: 0
    display_index: 2
    depth: 4
    role: 0
    sticky: 0
  decorators:
    - "@@depth 3"
---
A glade.
`;

const PLAIN = "---\ntitle: Mine\nkeywords: [mine]\npriority: 2\n---\nMy own card.\n";

function cards(vault: Vault) {
  const list = ["Harbor", "Lantern", "glade", "Mine"].filter((k) =>
    fs.existsSync(path.join(vault.root, `${k}.md`)),
  );
  return list.map((k) => readCard(vault, "entry", k));
}

describe("finding cards imported with the old mapping", () => {
  test("old imports are found with what a repair changes; a hand-made card is not", () => {
    const vault = newVault({
      "Harbor.md": NOT_ALL_OLD,
      "Lantern.md": AND_ALL_OLD,
      "glade.md": BOOK_OLD,
      "Mine.md": PLAIN,
    });
    const stale = staleImports(cards(vault));
    expect(stale.map((s) => s.key)).toEqual(["Harbor", "Lantern", "glade"]);
    expect(stale[0]!.changes).toContain("secondary.all → secondary.not_all (SillyTavern 1 = NOT ALL)");
    expect(stale[1]!.changes).toContain("secondary.not → secondary.all (SillyTavern 3 = AND ALL)");
    expect(stale[2]!.changes).toContain("secondary.all → secondary.not_all (SillyTavern 1 = NOT ALL)");
  });

  test("cards imported today are not found", async () => {
    const vault = newVault({});
    const book = {
      entries: {
        "0": {
          uid: 0,
          key: ["a"],
          keysecondary: ["b"],
          selectiveLogic: 1,
          constant: true,
          order: 3,
          content: "A",
        },
        "1": { uid: 1, key: ["c"], keysecondary: ["d"], selectiveLogic: 3, content: "C" },
      },
    };
    await importBook(vault, book, { filename: "b.json" });
    const all = ["a", "c"].map((k) => readCard(vault, "entry", k));
    expect(staleImports(all)).toEqual([]);
  });
});

describe("lorecards repair", () => {
  test("--dry-run lists the cards and writes nothing", async () => {
    const vault = newVault({ "Harbor.md": NOT_ALL_OLD });
    const result = await repairImports(vault, { dryRun: true });
    expect(result.cards.map((c) => c.path)).toEqual(["Harbor.md"]);
    expect(fs.readFileSync(path.join(vault.root, "Harbor.md"), "utf8")).toBe(NOT_ALL_OLD);
    expect(repairLines(result)[0]).toBe("would repair 1 card imported with the old mapping");
  });

  test("a repair maps every old card again, keeps what it does not touch, and finds nothing the second time", async () => {
    const vault = newVault({
      "Harbor.md": NOT_ALL_OLD,
      "Lantern.md": AND_ALL_OLD,
      "glade.md": BOOK_OLD,
      "Mine.md": PLAIN,
    });
    const result = await repairImports(vault);
    expect(result.cards).toHaveLength(3);
    const [harbor, lantern, glade, mine] = cards(vault);
    expect(harbor!.secondary.notAll).toEqual(["fog", "night"]);
    expect(harbor!.frontmatter).toMatchObject({
      order: 100,
      context: "always",
      position: "at_depth",
      depth: 2,
      role: "user",
      probability: 40,
      st: { uid: 0 },
    });
    expect(harbor!.frontmatter).not.toHaveProperty("priority");
    expect(fs.readFileSync(path.join(vault.root, "Harbor.md"), "utf8")).toContain("# my note: keep this");
    expect(lantern!.secondary.all).toEqual(["green"]);
    expect(lantern!.frontmatter).toMatchObject({ order: 5, scan_messages: 3 });
    expect(lantern!.frontmatter).not.toHaveProperty("scan_depth");
    expect(glade!.secondary.notAll).toEqual(["night"]);
    expect(glade!.frontmatter).toMatchObject({
      order: 100,
      position: "before_char",
      decorators: ["@@depth 3"],
    });
    expect((glade!.frontmatter.card as Raw).decorators).toBeUndefined();
    expect(mine!.frontmatter).toEqual({ title: "Mine", keywords: ["mine"], priority: 2 });
    expect((await repairImports(vault)).cards).toEqual([]);
  });

  test("after a repair, an export gives SillyTavern back the numbers the book had", async () => {
    const vault = newVault({ "Harbor.md": NOT_ALL_OLD, "Lantern.md": AND_ALL_OLD });
    await repairImports(vault);
    const out = json((await exportBook(vault, "st")).bytes) as { entries: Record<string, Raw> };
    expect(out.entries["0"]).toMatchObject({
      selectiveLogic: 1,
      constant: true,
      position: 4,
      depth: 2,
      role: 1,
      probability: 40,
    });
    expect(out.entries["1"]).toMatchObject({ selectiveLogic: 3, scanDepth: 3 });
  });

  test("World Info content that opened with @@ lines gets them moved to decorators", async () => {
    const old =
      "---\ntitle: Rule\nkeywords: []\npriority: 100\nenabled: true\nst:\n  uid: 9\n---\n@@activate\nAlways here.\n";
    const vault = newVault({ "Rule.md": old });
    await repairImports(vault);
    const rule = readCard(vault, "entry", "Rule");
    expect(rule.frontmatter.decorators).toEqual(["@@activate"]);
    expect(rule.body).toBe("Always here.\n");
  });
});
