import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Card } from "../../src/card/index.ts";
import { advanceMtime, statExact } from "../../src/vault/_fs.ts";
import {
  archiveCard,
  cardPath,
  createCard,
  findCard,
  listArchived,
  openVault,
  readCard,
  restoreCard,
  updateCard,
  updateRecent,
} from "../../src/vault/index.ts";
import { fixture, rejectsWith, tempVault, write } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const bob = {
  kind: "people",
  key: "Bob",
  frontmatter: { title: "Bob", keywords: ["Bob"] },
  body: "## who\nBob.\n",
};
const leftovers = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"));

describe("creating cards", () => {
  test("createCard writes the file and returns the parsed card", async () => {
    vault = tempVault();
    const card = await createCard(vault, bob);
    expect(card.path).toBe("people/Bob.md");
    expect(card.keywords).toEqual(["Bob"]);
    expect(fs.readFileSync(cardPath(vault, "people", "Bob"), "utf8")).toBe(
      "---\ntitle: Bob\nkeywords: [Bob]\n---\n## who\nBob.\n",
    );
    expect(leftovers(path.join(vault.root, "people"))).toEqual([]);
    expect(fs.existsSync(path.join(vault.root, ".lorecards", "lock"))).toBe(false);
  });

  test("a taken name in that kind is a conflict and the file is untouched", async () => {
    vault = tempVault();
    const before = fs.readFileSync(cardPath(vault, "people", "Alice"), "utf8");
    await rejectsWith("conflict", () => createCard(vault, { ...bob, key: "Alice" }));
    expect(fs.readFileSync(cardPath(vault, "people", "Alice"), "utf8")).toBe(before);
  });

  test("the same name in another kind is fine", async () => {
    vault = tempVault();
    expect((await createCard(vault, { ...bob, kind: "thing", key: "Alice" })).path).toBe("things/Alice.md");
  });

  test.each(["../escape", "a/b", "CON", ".hidden", ""])(
    "the key %p is refused before anything is written",
    async (key) => {
      vault = tempVault();
      await rejectsWith("invalid_key", () => createCard(vault, { ...bob, key }));
      expect(fs.existsSync(path.join(vault.root, "escape.md"))).toBe(false);
    },
  );

  test("an unknown kind is refused", async () => {
    vault = tempVault();
    await rejectsWith("unknown_kind", () => createCard(vault, { ...bob, kind: "monster" }));
  });

  test("a missing kind directory is created", async () => {
    vault = tempVault(false);
    expect((await createCard(vault, { ...bob, kind: "slang", key: "yeet" })).path).toBe("slang/yeet.md");
  });
});

describe("reading cards", () => {
  test("readCard carries the exact nanosecond mtime and size", () => {
    vault = tempVault();
    const card = readCard(vault, "people", "Alice");
    const st = fs.statSync(cardPath(vault, "people", "Alice"), { bigint: true });
    expect(card.mtime).toBe(st.mtimeNs.toString());
    expect(card.size).toBe(Number(st.size));
  });

  test("a missing card is not_found", async () => {
    vault = tempVault();
    await rejectsWith("not_found", () => readCard(vault, "people", "Nobody"));
  });

  test.each([
    ["a key in any kind", "the green notebook", "thing"],
    ["kind/key", "people/Alice", "people"],
    ["dir/key", "events/the Friday deploy", "event"],
    ["a key in another case", "ALICE", "people"],
    ["a title", "Alias Title", "slang"],
  ])("findCard finds %s", async (_name, query, kind) => {
    vault = tempVault();
    write(vault, "slang/odd-key.md", "---\ntitle: Alias Title\n---\nx\n");
    expect(findCard(vault, query).kind).toBe(kind);
  });

  test("findCard reports a name nobody has as not_found", async () => {
    vault = tempVault();
    await rejectsWith("not_found", () => findCard(vault, "Nobody"));
  });
});

describe("updating cards", () => {
  test("updateCard keeps unknown keys and comments", async () => {
    vault = tempVault();
    write(vault, "people/Carol.md", fixture("commented.md"));
    const before = readCard(vault, "people", "Carol");
    const after = await updateCard(vault, "people", "Carol", {
      frontmatter: { ...before.frontmatter, priority: 4 },
    });
    expect(after.priority).toBe(4);
    const text = fs.readFileSync(cardPath(vault, "people", "Carol"), "utf8");
    expect(text).toContain("# quoted on purpose");
    expect(after.frontmatter.st).toEqual({ depth: 4, selective: "yes" });
  });

  test("a matching mtime precondition lets the write through and returns the new mtime", async () => {
    vault = tempVault();
    const card = readCard(vault, "people", "Alice");
    const after = await updateCard(
      vault,
      "people",
      "Alice",
      { body: "## who\nAlice.\n" },
      { mtime: card.mtime },
    );
    expect(after.body).toBe("## who\nAlice.\n");
    expect(after.mtime).toBe(
      fs.statSync(cardPath(vault, "people", "Alice"), { bigint: true }).mtimeNs.toString(),
    );
  });

  test("a stale mtime is a conflict carrying the current card, and nothing is written", async () => {
    vault = tempVault();
    const file = cardPath(vault, "people", "Alice");
    fs.writeFileSync(file, `${fs.readFileSync(file, "utf8")}\nedited elsewhere\n`);
    const current = fs.readFileSync(file, "utf8");
    const err = await rejectsWith("conflict", () =>
      updateCard(vault, "people", "Alice", { body: "mine" }, { mtime: "1" }),
    );
    expect((err.data as Card).body).toContain("edited elsewhere");
    expect(fs.readFileSync(file, "utf8")).toBe(current);
  });

  test("a different size is a conflict even when the mtime matches", async () => {
    vault = tempVault();
    const card = readCard(vault, "people", "Alice");
    await rejectsWith("conflict", () =>
      updateCard(vault, "people", "Alice", { body: "mine" }, { mtime: card.mtime, size: card.size + 1 }),
    );
  });

  test("updating a missing card is not_found", async () => {
    vault = tempVault();
    await rejectsWith("not_found", () => updateCard(vault, "people", "Nobody", { body: "x" }));
  });

  test("updateRecent changes only the recent section's bytes", async () => {
    vault = tempVault();
    const file = cardPath(vault, "people", "Alice");
    const before = fs.readFileSync(file, "utf8");
    const card = await updateRecent(vault, "people", "Alice", "Shipped the refund rewrite.");
    expect(fs.readFileSync(file, "utf8")).toBe(
      before.replace("Took over the refund flow rewrite in September.", "Shipped the refund rewrite."),
    );
    expect(card.sections.find((s) => s.heading === "recent")?.text).toBe("Shipped the refund rewrite.\n\n");
  });

  test("updateRecent uses the section kinds.yaml names", async () => {
    vault = tempVault();
    fs.writeFileSync(path.join(vault.root, "kinds.yaml"), "recent_section: { event: followup }\n");
    const v = openVault(vault.root);
    const card = await updateRecent(v, "event", "the Friday deploy", "Ships next week.");
    expect(card.sections.find((s) => s.heading === "followup")?.text).toBe("Ships next week.\n");
  });

  test("updateRecent on a kind without a recent section is invalid_input", async () => {
    vault = tempVault();
    await rejectsWith("invalid_input", () => updateRecent(vault, "slang", "yak shaving", "x"));
  });
});

describe("archive and restore", () => {
  test("archiving moves the card under _archive/<dir>/ and restoring brings it back byte for byte", async () => {
    vault = tempVault();
    const file = cardPath(vault, "people", "Alice");
    const text = fs.readFileSync(file, "utf8");
    const archived = await archiveCard(vault, "people", "Alice");
    expect(archived).toMatchObject({
      kind: "people",
      key: "Alice",
      originalKey: "Alice",
      path: "_archive/people/Alice.md",
    });
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readFileSync(path.join(vault.root, "_archive", "people", "Alice.md"), "utf8")).toBe(text);
    expect(listArchived(vault).map((a) => a.path)).toEqual(["_archive/people/Alice.md"]);
    const restored = await restoreCard(vault, "people", "Alice");
    expect(restored.path).toBe("people/Alice.md");
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(listArchived(vault)).toEqual([]);
  });

  test("an entry card archives to the archive's root", async () => {
    vault = tempVault();
    expect((await archiveCard(vault, "entry", "about these cards")).path).toBe(
      "_archive/about these cards.md",
    );
  });

  test("archiving a name already in the archive keeps both under unique names", async () => {
    vault = tempVault();
    const first = await archiveCard(vault, "people", "Alice");
    await createCard(vault, { ...bob, key: "Alice" });
    const second = await archiveCard(vault, "people", "Alice");
    expect([first.key, second.key]).toEqual(["Alice", "Alice~2"]);
    expect(listArchived(vault).map((a) => [a.key, a.originalKey])).toEqual([
      ["Alice", "Alice"],
      ["Alice~2", "Alice"],
    ]);
    const restored = await restoreCard(vault, "people", "Alice~2");
    expect(restored.key).toBe("Alice");
    expect(restored.keywords).toEqual(["Bob"]);
  });

  test("restoring a card that would not read back is a parse_error and leaves it archived", async () => {
    vault = tempVault();
    write(vault, "people/Broken.md", "---\ntitle: [unclosed\n---\nbody\n");
    await archiveCard(vault, "people", "Broken");
    await rejectsWith("parse_error", () => restoreCard(vault, "people", "Broken"));
    expect(fs.existsSync(path.join(vault.root, "_archive", "people", "Broken.md"))).toBe(true);
    expect(fs.existsSync(cardPath(vault, "people", "Broken"))).toBe(false);
  });

  test("restoring over a live card is a conflict and moves nothing", async () => {
    vault = tempVault();
    await archiveCard(vault, "people", "Alice");
    await createCard(vault, { ...bob, key: "Alice" });
    await rejectsWith("conflict", () => restoreCard(vault, "people", "Alice"));
    expect(listArchived(vault)).toHaveLength(1);
    expect((await restoreCard(vault, "people", "Alice", { as: "Alice (old)" })).title).toBe("Alice");
  });

  test.each([
    ["archiving a missing card", (v: typeof vault) => archiveCard(v, "people", "Nobody")],
    ["restoring a name the archive does not hold", (v: typeof vault) => restoreCard(v, "people", "Nobody")],
  ])("%s is not_found", async (_name, run) => {
    vault = tempVault();
    await rejectsWith("not_found", () => run(vault));
  });
});

describe("versions", () => {
  // File times are coarse (a clock tick of a few ms): a rewrite right after a write can land on the
  // same mtime. The vault moves it on, so conflict checks and the index cache always see the change.
  test("a rewrite that kept the old mtime gets a newer one", () => {
    vault = tempVault();
    const file = path.join(vault.root, "people", "Zed.md");
    fs.writeFileSync(file, "x");
    const before = statExact(file)!.mtime;
    advanceMtime(file, before);
    expect(BigInt(statExact(file)!.mtime)).toBeGreaterThan(BigInt(before));
  });

  test("a rewrite whose mtime already moved is left alone", () => {
    vault = tempVault();
    const file = path.join(vault.root, "people", "Zed.md");
    fs.writeFileSync(file, "x");
    const now = statExact(file)!.mtime;
    advanceMtime(file, "12345");
    expect(statExact(file)!.mtime).toBe(now);
  });
});
