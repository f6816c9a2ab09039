// Fuzzing the vault's write path on a real folder: create, update, update_recent, archive and restore
// with any kind, name, frontmatter and body. Each writes or refuses with a code, never outside the
// vault, and a refusal leaves every card file as it was.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import fc from "fast-check";
import type { Card } from "../../src/card/index.ts";
import { checkVault } from "../../src/check/vault.ts";
import {
  archiveCard,
  cardPath,
  createCard,
  findCard,
  initVault,
  loadIndex,
  openVault,
  readCard,
  restoreCard,
  updateCard,
  updateRecent,
  type Vault,
} from "../../src/vault/index.ts";
import { anyString, SPECIALS, shortString } from "./_arbitraries.ts";
import { body, frontmatter } from "./_cards.ts";
import {
  announce,
  attempt,
  expectCoded,
  expectFast,
  expectUntouched,
  fuzz,
  inNewVault,
  sandbox,
  timeoutFor,
  untouched,
  vaultSandbox,
} from "./_support.ts";

announce("vault");

const WRITES = { runs: 1000, ms: 4000 };
const KEYS = ["Alice", "the Friday deploy", "小林", "x"];

type Op =
  | { op: "create"; kind: string; key: string; frontmatter: Record<string, unknown>; body: string }
  | {
      op: "update";
      kind: string;
      key: string;
      frontmatter?: Record<string, unknown>;
      body?: string;
      mtime?: string;
    }
  | { op: "recent"; kind: string; key: string; text: string }
  | { op: "archive"; kind: string; key: string }
  | { op: "restore"; kind: string; key: string };

const KINDS = [
  "people",
  "event",
  "place",
  "thing",
  "slang",
  "entry",
  "People",
  "nope",
  "",
  "../people",
  "_archive",
];
const CARD_KEYS = [...KEYS, "Bob", "new card", ...SPECIALS];
const kindArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KINDS) },
  { weight: 1, arbitrary: shortString },
);
const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CARD_KEYS) },
  { weight: 1, arbitrary: anyString },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), kind: kindArb, key: keyArb, frontmatter, body }),
  fc.record(
    {
      op: fc.constant("update" as const),
      kind: kindArb,
      key: keyArb,
      frontmatter,
      body,
      mtime: fc.oneof(shortString, fc.constant("0")),
    },
    { requiredKeys: ["op", "kind", "key"] },
  ),
  fc.record({ op: fc.constant("recent" as const), kind: kindArb, key: keyArb, text: anyString }),
  fc.record({ op: fc.constant("archive" as const), kind: kindArb, key: keyArb }),
  fc.record({ op: fc.constant("restore" as const), kind: kindArb, key: keyArb }),
);

async function apply(vault: Vault, o: Op): Promise<Card | unknown> {
  switch (o.op) {
    case "create":
      return createCard(vault, { kind: o.kind, key: o.key, frontmatter: o.frontmatter, body: o.body });
    case "update":
      return updateCard(
        vault,
        o.kind,
        o.key,
        { frontmatter: o.frontmatter, body: o.body },
        { mtime: o.mtime },
      );
    case "recent":
      return updateRecent(vault, o.kind, o.key, o.text);
    case "archive":
      return archiveCard(vault, o.kind, o.key);
    case "restore":
      return restoreCard(vault, o.kind, o.key);
  }
}

const REFUSALS = [
  "invalid_input",
  "invalid_key",
  "unknown_kind",
  "not_found",
  "conflict",
  "parse_error",
  "forbidden",
] as const;

describe("the vault's write path", () => {
  const shared = vaultSandbox();

  test(
    "writes or refuses with a code, never outside the vault, and a refusal changes nothing",
    async () => {
      const { box, vault } = shared;
      await fuzz(
        "card/vault-writes",
        fc.asyncProperty(op, async (o) => {
          const before = untouched(box);
          const out = await attempt(() => apply(vault, o));
          await expectFast(out, `${o.op}`);
          if (!out.ok) {
            const err = expectCoded(out.error, REFUSALS);
            expectUntouched(box, before, `${o.op} was refused (${err.code}: ${err.message})`);
            return;
          }
          expectUntouched(box, before);
          if (o.op === "create" || o.op === "update" || o.op === "recent") {
            const card = out.value as Card;
            // What was written reads back.
            expect(readCard(vault, card.kind, card.key).key).toBe(card.key);
          }
        }),
        WRITES,
      );
    },
    timeoutFor(WRITES),
  );
});

describe("bugs the fuzzing found, fixed", () => {
  test("updating a card whose frontmatter block is empty keeps it readable", async () => {
    await inNewVault(async (vault) => {
      fs.writeFileSync(cardPath(vault, "people", "Eve"), "---\n---\nbody\n");
      const card = await updateCard(vault, "people", "Eve", { frontmatter: { title: "Eve" } });
      expect(card.title).toBe("Eve");
    });
  });

  test("a card created with a whitespace-only line in a string reads back", async () => {
    await inNewVault(async (vault) => {
      const card = await createCard(vault, {
        kind: "people",
        key: "Eve",
        frontmatter: { note: " \n\t\n" },
        body: "",
      });
      expect(card.frontmatter.note).toBe(" \n\t\n");
    });
  });

  test("an edit that would not read back as meant is refused and leaves the file as it was", async () => {
    await inNewVault(async (vault) => {
      const file = cardPath(vault, "people", "Eve");
      // A collection key: toJS names it "[ a, b ]", but no edit can address it in the YAML.
      const text = "---\n? [a, b]\n: x\ntitle: Eve\n---\nbody\n";
      fs.writeFileSync(file, text);
      const out = await attempt(() =>
        updateCard(vault, "people", "Eve", { frontmatter: { "[ a, b ]": undefined, title: "Eve" } }),
      );
      expect(out.ok).toBe(false);
      if (!out.ok) expectCoded(out.error, ["invalid_input"]);
      expect(fs.readFileSync(file, "utf8")).toBe(text);
    });
  });
});

describe("what stands where a card goes", () => {
  // A FIFO, a folder, a hard link to a file outside, a symbolic link, each at a card's name: every
  // reader answers or refuses with a code, at once (a FIFO once hung them for good), and shows
  // nothing of the file outside.
  const SECRET = "FUZZ-OUTSIDE-8813";
  const odd = fc.record({
    kind: fc.constantFrom("fifo", "folder", "hardlink", "symlink"),
    dir: fc.constantFrom("people", "events", "places", "things", "slang"),
    name: fc.oneof(fc.constantFrom("Alice", "Odd", "小林", "x"), shortString),
  });
  const budget = { runs: 120, ms: 4000 };

  test(
    "every reader answers or refuses with a code, and nothing of what lies outside is read",
    async () => {
      const box = sandbox(initVault);
      fs.writeFileSync(`${box.parent}/outside.md`, `---\nkeywords: [odd]\n---\n${SECRET}\n`);
      try {
        const property = fc.asyncProperty(fc.array(odd, { minLength: 1, maxLength: 4 }), async (entries) => {
          const made: string[] = [];
          for (const e of entries) {
            const name = e.name.replace(/[/\\\0]/g, "_").slice(0, 40) || "_";
            const file = `${box.root}/${e.dir}/${name}.md`;
            if (fs.existsSync(file)) continue;
            if (e.kind === "fifo") Bun.spawnSync(["mkfifo", file]);
            else if (e.kind === "folder") fs.mkdirSync(file);
            else if (e.kind === "hardlink") fs.linkSync(`${box.parent}/outside.md`, file);
            else fs.symlinkSync(`${box.parent}/outside.md`, file);
            made.push(file);
          }
          try {
            const vault = openVault(box.root);
            const index = await attempt(() => loadIndex(vault));
            expectFast(index, "loadIndex");
            if (!index.ok) expectCoded(index.error, ["forbidden", "io_error"]);
            for (const file of made) {
              const rel = file.slice(box.root.length + 1).replace(/\.md$/, "");
              const read = await attempt(() => findCard(vault, rel));
              expectFast(read, `findCard ${rel}`);
              if (read.ok) expect(JSON.stringify(read.value)).not.toContain(SECRET);
              else expectCoded(read.error, ["forbidden", "not_found", "invalid_key", "unknown_kind"]);
            }
            const checked = await attempt(() => checkVault(vault));
            expectFast(checked, "check");
            if (checked.ok) expect(JSON.stringify(checked.value)).not.toContain(SECRET);
          } finally {
            for (const file of made) fs.rmSync(file, { recursive: true, force: true });
          }
        });
        await fuzz("vault: odd entries where cards go", property, budget);
      } finally {
        box.remove();
      }
    },
    timeoutFor(budget),
  );
});
