// The persisted index keeps a card's lorebook rules and NOT ALL words: a warm load (rows decoded from
// index.db) gives exactly the metadata a cold load (every card parsed) gave.
import { afterEach, describe, expect, test } from "bun:test";
import { loadIndex } from "../../src/vault/index.ts";
import { backdate } from "../support/card-vault.ts";
import { storedRow, tempVault, withIndexDb, write } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const CARDS: [string, string][] = [
  ["plain.md", "title: Plain\nkeywords: [plain]"],
  ["always.md", "title: Always\ncontext: always"],
  [
    "everything.md",
    "title: Everything\nkeywords: ['/ev(er)?y/i']\nregex: true\ncase_sensitive: true\nwhole_words: false\n" +
      "scan_messages: 4\norder: 7\ngroup: [a, b]\ngroup_override: true\ngroup_weight: 30\ngroup_scoring: true\n" +
      "probability: 25\nexclude_recursion: true\nprevent_recursion: true\ndelay_until_recursion: true\n" +
      "sticky: 2\ncooldown: 3\ndelay: 4\nignore_budget: true\nposition: at_depth\ndepth: 1\nrole: user\n" +
      "decorators: ['@@additional_keys x,y', '@@exclude_keys z', '@@activate_only_after 2', " +
      "'@@activate_only_every 3', '@@keep_activate_after_match', '@@dont_activate_after_match']",
  ],
  ["not-all.md", "title: NotAll\nsecondary: {all: [a], not_all: [b, c]}"],
  ["warned.md", "title: Warned\ncontext: never\npriority: high"],
  ["warned-plain.md", "title: WarnedPlain\npriority: high"],
  ["tagged.md", "title: Tagged\ntags: [season 2, draft]"],
];

/** Write the cards, settled in the past so a second load trusts its rows (src/vault/catalog.ts). */
function writeCards(): void {
  for (const [file, fm] of CARDS) write(vault, file, `---\n${fm}\n---\nText of ${file}.\n`);
  backdate(vault.root);
}

describe("the index with lorebook rules", () => {
  test("a warm load decodes the same rules, secondary words and warnings a cold load parsed", () => {
    vault = tempVault(false);
    writeCards();
    const cold = loadIndex(vault);
    const warm = loadIndex(vault);
    expect(warm.parsed).toBe(0);
    const byPath = (list: typeof cold.cards) => Object.fromEntries(list.map((c) => [c.path, c]));
    expect(byPath(warm.cards)).toEqual(byPath(cold.cards));
    expect(warm.warnings).toEqual(cold.warnings);
    const every = byPath(warm.cards)["everything.md"]!;
    expect(every.rules).toMatchObject({ regex: true, groups: ["a", "b"], additionalKeys: [["x", "y"]] });
    expect(byPath(warm.cards)["not-all.md"]!.secondary.notAll).toEqual(["b", "c"]);
    expect(byPath(warm.cards)["warned.md"]!.rules?.policy).toBe("never");
    expect(byPath(warm.cards)["plain.md"]).not.toHaveProperty("rules");
    expect(byPath(warm.cards)["tagged.md"]!.tags).toEqual(["season 2", "draft"]);
    expect(byPath(warm.cards)["plain.md"]).not.toHaveProperty("tags");
  });

  test("only cards with rules carry them, as the changes from the defaults", () => {
    vault = tempVault(false);
    writeCards();
    loadIndex(vault);
    const row = (rel: string) => storedRow(vault, rel)!;
    expect(row("plain.md")).toHaveLength(14);
    expect(row("warned-plain.md")).toHaveLength(15);
    expect(row("always.md").slice(14)).toEqual([0, { policy: "always" }]);
    expect(row("warned.md")[15]).toEqual({ policy: "never" });
    expect(row("not-all.md")[7]).toEqual([["a"], [], [], ["b", "c"]]);
    expect(row("tagged.md").slice(14)).toEqual([0, 0, ["season 2", "draft"]]);
  });

  test("an index written for an older row format is not trusted: every card is parsed again", () => {
    vault = tempVault(false);
    writeCards();
    loadIndex(vault);
    const layout = () => withIndexDb(vault, (db) => db.query("PRAGMA user_version").get());
    expect(layout()).toEqual({ user_version: 606 });
    withIndexDb(vault, (db) => db.exec("PRAGMA user_version = 404"));
    expect(loadIndex(vault).parsed).toBe(CARDS.length);
    expect(layout()).toEqual({ user_version: 606 });
  });
});
