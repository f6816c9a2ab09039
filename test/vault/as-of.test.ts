// The vault as of a version or a time (vault/as-of.ts): a copy where cards with history hold their text
// of then, and everything else is as it is now; the real vault is never touched.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  archiveCard,
  createCard,
  parseAsOf,
  readHistory,
  updateRecent,
  type Vault,
  vaultAsOf,
} from "../../src/vault/index.ts";
import { rejectsWith, tempVault, write } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const draft = (key: string) => ({
  kind: "people",
  key,
  frontmatter: { title: key, keywords: [key] },
  body: "",
});
const text = (root: string, rel: string) =>
  fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), "utf8") : null;

describe("parsing --as-of", () => {
  test.each([
    ["12", { version: 12 }],
    ["2025-06-01T14:30:00Z", { at: Date.UTC(2025, 5, 1, 14, 30) }],
    ["2025-06-01T14:30:00.250+02:00", { at: Date.UTC(2025, 5, 1, 12, 30, 0, 250) }],
    ["2025-06-01", { at: new Date(2025, 5, 1).getTime() }],
    ["2025-06-01 14:30", { at: new Date(2025, 5, 1, 14, 30).getTime() }],
  ])("%p is read as a version or a time", (given, point) => {
    expect(parseAsOf(given)).toEqual(point);
  });

  test.each(["yesterday", "-3", "2025-13-45", "12:00", ""])("%p is a usage error", async (given) => {
    await rejectsWith("usage", () => parseAsOf(given));
  });
});

describe("the vault of then", () => {
  /** Ann created (1), Ann updated (2), Bob created (3), Ann archived (4); Cat has no history. */
  async function story(v: Vault) {
    await createCard(v, draft("Ann"));
    await updateRecent(v, "people", "Ann", "Later note.");
    await createCard(v, draft("Bob"));
    await archiveCard(v, "people", "Ann");
    write(v, "people/Cat.md", "---\ntitle: Cat\n---\nHand-written.\n");
  }

  test("each card with history is as it was right after that version; the others are as now", async () => {
    vault = tempVault(false);
    await story(vault);
    const firstAnn = readHistory(vault, "people", "Ann").at(-1)!.after!;
    const asOf = vaultAsOf(vault, { version: 1 });
    try {
      expect(text(asOf.root, "people/Ann.md")).toBe(firstAnn);
      expect(text(asOf.root, "people/Bob.md")).toBeNull();
      expect(text(asOf.root, "people/Cat.md")).toBe("---\ntitle: Cat\n---\nHand-written.\n");
      expect([asOf.version, asOf.fromHistory.sort(), asOf.absent, asOf.asNow]).toEqual([
        1,
        ["people/Ann", "people/Bob"],
        ["people/Bob"],
        1,
      ]);
    } finally {
      asOf.remove();
    }
    expect(fs.existsSync(asOf.root)).toBe(false);
  });

  test("an archived card is back at a version when it was live, and gone at the newest", async () => {
    vault = tempVault(false);
    await story(vault);
    const at2 = vaultAsOf(vault, { version: 2 });
    const at4 = vaultAsOf(vault, { version: 4 });
    try {
      expect(text(at2.root, "people/Ann.md")).toContain("Later note.");
      expect(text(at4.root, "people/Ann.md")).toBeNull();
      expect(text(at4.root, "people/Bob.md")).not.toBeNull();
    } finally {
      at2.remove();
      at4.remove();
    }
  });

  test("a time picks the newest version written at or before it; before all, cards are as before their first", async () => {
    vault = tempVault(false);
    await story(vault);
    const second = readHistory(vault, "people", "Ann")[1]!; // version 2
    const asOf = vaultAsOf(vault, { at: second.at });
    const before = vaultAsOf(vault, { at: 0 });
    try {
      expect(asOf.version).toBeGreaterThanOrEqual(2);
      expect(Date.parse(asOf.at!)).toBeLessThanOrEqual(second.at);
      expect([before.version, before.at, before.absent.sort()]).toEqual([
        0,
        null,
        ["people/Ann", "people/Bob"],
      ]);
    } finally {
      asOf.remove();
      before.remove();
    }
  });

  test("the state folder and the archive are not copied, and the real vault is untouched", async () => {
    vault = tempVault(false);
    await story(vault);
    const asOf = vaultAsOf(vault, { version: 1 });
    try {
      expect(fs.existsSync(path.join(asOf.root, ".lorecards"))).toBe(false);
      expect(fs.existsSync(path.join(asOf.root, "_archive"))).toBe(false);
      expect(fs.existsSync(path.join(vault.root, "_archive", "people", "Ann.md"))).toBe(true);
      expect(fs.existsSync(path.join(vault.root, "people", "Ann.md"))).toBe(false);
    } finally {
      asOf.remove();
    }
  });

  test.each([0, 9])("version %p does not exist: not_found, and nothing is copied", async (n) => {
    vault = tempVault(false);
    await story(vault);
    await rejectsWith("not_found", () => vaultAsOf(vault, { version: n }));
  });
});
