import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initVault, loadIndex, openVault, readCard, resolveVaultPath } from "../../src/vault/index.ts";
import { rejectsWith } from "./_helpers.ts";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
}

describe("resolveVaultPath", () => {
  const env = { HOME: "/home/rin" };
  test.each([
    ["the flag wins over the environment", "/cards", { ...env, LORECARDS_VAULT: "/env" }, "/cards"],
    ["$LORECARDS_VAULT comes next", undefined, { ...env, LORECARDS_VAULT: "/env/vault" }, "/env/vault"],
    ["~/.lorecards is the default", undefined, env, "/home/rin/.lorecards"],
    ["an empty variable is ignored", undefined, { ...env, LORECARDS_VAULT: "" }, "/home/rin/.lorecards"],
    ["~ is expanded in the flag", "~/cards", env, "/home/rin/cards"],
    ["~ is expanded in the variable", undefined, { ...env, LORECARDS_VAULT: "~/v" }, "/home/rin/v"],
    ["~ alone is the home directory", "~", env, "/home/rin"],
    ["~user is not expanded", "/x/~rin", env, "/x/~rin"],
  ])("%s", (_name, flag, vars, expected) => {
    expect(resolveVaultPath(flag, vars)).toBe(path.resolve(expected));
  });

  test("a relative flag is made absolute", () => {
    expect(resolveVaultPath("cards", {})).toBe(path.resolve("cards"));
  });
});

describe("initVault", () => {
  test("writes the kind directories and one parseable example card per kind", () => {
    const root = path.join(tempDir(), "vault");
    try {
      const { created } = initVault(root);
      expect(created).toEqual([
        ".",
        "people/",
        "people/Alice.md",
        "events/",
        "events/the Friday deploy.md",
        "places/",
        "places/the corner cafe.md",
        "things/",
        "things/the green notebook.md",
        "slang/",
        "slang/yak shaving.md",
        "about these cards.md",
      ]);
      const index = loadIndex(openVault(root));
      expect(index.broken).toEqual([]);
      expect(index.warnings).toEqual([]);
      expect(index.cards.map((c) => c.kind)).toEqual(["people", "event", "place", "thing", "slang", "entry"]);
      const alice = readCard(openVault(root), "people", "Alice");
      expect(alice.sections.map((s) => s.heading)).toEqual(["who", "stance", "recent", "impression"]);
      expect(alice.refs).toEqual(["the Friday deploy"]);
    } finally {
      fs.rmSync(path.dirname(root), { recursive: true, force: true });
    }
  });

  test("never overwrites a file that exists, and reports only what it created", () => {
    const root = tempDir();
    try {
      fs.mkdirSync(path.join(root, "people"));
      fs.writeFileSync(path.join(root, "people", "Alice.md"), "mine\n");
      const { created } = initVault(root);
      expect(created).not.toContain("people/Alice.md");
      expect(created).not.toContain("people/");
      expect(fs.readFileSync(path.join(root, "people", "Alice.md"), "utf8")).toBe("mine\n");
      expect(initVault(root).created).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test.each([
    ["a card in a kind's folder", "people/Priya.md"],
    ["a note in the folder itself", "README.md"],
    ["a note in a folder of a notes app's own", "Characters/Minor/Vell.md"],
  ])(
    "a folder that holds cards already (%s) gets no example card and no empty kind folder",
    (_name, file) => {
      // A new user's `init` on their notes added Alice and the Friday deploy, which then fired in their
      // conversations (Alice's keywords include "payments team").
      const root = tempDir();
      try {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), "---\nkeywords: [Priya]\n---\nPriya.\n");
        const { created, examples } = initVault(root);
        expect(examples).toBe(false);
        expect(created).toEqual([]);
        expect(fs.existsSync(path.join(root, "events"))).toBe(false);
        expect(loadIndex(openVault(root)).cards.map((c) => c.path)).toEqual([file]);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );

  test("follows the vault's kinds.yaml: renamed directories and headings", () => {
    const root = tempDir();
    try {
      fs.writeFileSync(
        path.join(root, "kinds.yaml"),
        "dirs: { people: personnes }\nsections: { people: [qui, relation, recent, impression] }\n",
      );
      const { created } = initVault(root);
      expect(created).toContain("personnes/Alice.md");
      const alice = readCard(openVault(root), "people", "Alice");
      expect(alice.path).toBe("personnes/Alice.md");
      expect(alice.sections.map((s) => s.heading)).toEqual(["qui", "relation", "recent", "impression"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("openVault", () => {
  test("a missing vault is not_found unless create is set", async () => {
    const parent = tempDir();
    const root = path.join(parent, "new");
    try {
      await rejectsWith("not_found", () => openVault(root));
      const vault = openVault(root, { create: true });
      expect(vault.root).toBe(root);
      expect(fs.existsSync(path.join(root, "people", "Alice.md"))).toBe(true);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  test("a file where the vault should be is invalid_input", async () => {
    const parent = tempDir();
    try {
      fs.writeFileSync(path.join(parent, "f"), "");
      await rejectsWith("invalid_input", () => openVault(path.join(parent, "f")));
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  test("a broken kinds.yaml is a clear parse_error, not a crash", async () => {
    const root = tempDir();
    try {
      fs.writeFileSync(path.join(root, "kinds.yaml"), "dirs: { people: ../up }\n");
      const err = await rejectsWith("parse_error", () => openVault(root));
      expect(err.message).toContain("kinds.yaml");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
