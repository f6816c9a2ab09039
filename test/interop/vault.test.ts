import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { progressBar } from "../../src/cli/import.ts";
import { exportBook, importBook } from "../../src/interop/index.ts";
import {
  indexPath,
  initVault,
  loadIndex,
  openVault,
  parseSettings,
  readCard,
  type Vault,
} from "../../src/vault/index.ts";
import { bad, HAVE_REAL, json, real, tempDir } from "./_support.ts";

type Raw = Record<string, unknown>;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function newVault(): Vault {
  const root = path.join(tempDir(), "vault");
  dirs.push(path.dirname(root));
  initVault(root);
  return openVault(root);
}

const BOOK = {
  entries: {
    "0": {
      uid: 0,
      key: ["harbor"],
      comment: "harbor",
      content: "The old harbor.",
      order: 10,
      probability: 50,
    },
    "1": { uid: 1, key: ["lantern"], comment: "lantern", content: "A green lantern.", disable: true },
    "2": { uid: 2, key: ["Harbor town"], comment: "Harbor", content: "Same title, other case." },
  },
};

/** Every file and directory under root with its bytes, except the lock (it exists only while locked). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, d.name);
      const rel = path.relative(root, abs);
      if (d.isDirectory()) {
        out[`${rel}/`] = "";
        walk(abs);
      } else if (!rel.endsWith("lock") && !/^\.lorecards\/index\.db/.test(rel)) {
        // The index is a cache, rebuilt from the cards: SQLite folds its log into it when a connection
        // closes, whenever that is, and what it holds is checked by reading the vault, not its bytes.
        out[rel] = fs.readFileSync(abs, "base64");
      }
    }
  };
  walk(root);
  return out;
}

describe("importBook", () => {
  test("creates one card per entry, keyed from the title, repeats numbered", async () => {
    const vault = newVault();
    const result = await importBook(vault, BOOK, { filename: "book.json" });
    expect(result).toMatchObject({
      format: "st",
      kind: "entry",
      created: 3,
      kept: 0,
      overwritten: 0,
      skipped: [],
    });
    const harbor = readCard(vault, "entry", "harbor");
    expect(harbor).toMatchObject({ title: "harbor", keywords: ["harbor"] });
    expect(harbor.frontmatter).toMatchObject({ order: 10, probability: 50 });
    expect(harbor.frontmatter.st).toEqual({ uid: 0 });
    expect(readCard(vault, "entry", "lantern").enabled).toBe(false);
    expect(readCard(vault, "entry", "Harbor 2").body).toBe("Same title, other case.\n");
  });

  test("existing cards are kept unless force, and force overwrites them in place", async () => {
    const vault = newVault();
    await importBook(vault, BOOK, { filename: "book.json" });
    const file = path.join(vault.root, "harbor.md");
    fs.writeFileSync(file, "---\ntitle: harbor\nkeywords: [mine]\n---\nMy own edit.\n");
    const kept = await importBook(vault, BOOK, { filename: "book.json" });
    expect(kept).toMatchObject({ created: 0, kept: 3, overwritten: 0 });
    expect(fs.readFileSync(file, "utf8")).toContain("My own edit.");
    const forced = await importBook(vault, BOOK, { filename: "book.json", force: true });
    expect(forced).toMatchObject({ created: 0, kept: 0, overwritten: 3 });
    expect(fs.readFileSync(file, "utf8")).toContain("The old harbor.");
  });

  test("--kind puts every card in that kind's directory", async () => {
    const vault = newVault();
    await importBook(vault, BOOK, { filename: "book.json", kind: "place" });
    expect(fs.existsSync(path.join(vault.root, "places", "harbor.md"))).toBe(true);
  });

  test("an unknown kind is refused before anything is written", async () => {
    const vault = newVault();
    const before = snapshot(vault.root);
    await expect(importBook(vault, BOOK, { filename: "book.json", kind: "planet" })).rejects.toMatchObject({
      code: "unknown_kind",
    });
    expect(snapshot(vault.root)).toEqual(before);
  });

  test("a failed import leaves the vault byte for byte as it was", async () => {
    const vault = newVault();
    await importBook(
      vault,
      { entries: { "0": { key: ["harbor"], comment: "harbor", content: "first" } } },
      {
        filename: "first.json",
      },
    );
    // A directory where the third card must go makes the last move fail after two have succeeded.
    fs.mkdirSync(path.join(vault.root, "zz blocker.md", "inside"), { recursive: true });
    const before = snapshot(vault.root);
    const book = {
      entries: [
        { key: ["harbor"], comment: "harbor", content: "second" },
        { key: ["new"], comment: "aaa new", content: "new" },
        { key: ["x"], comment: "zz blocker", content: "x" },
      ],
    };
    const err = await importBook(vault, book, { filename: "book.json", force: true }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "io_error" });
    expect((err as Error).message).toContain("zz blocker.md");
    expect(snapshot(vault.root)).toEqual(before);
  });

  test.each(["truncated.png", "zip-bomb.charx", "invalid.json"])(
    "a refused file (%s) changes nothing",
    async (name) => {
      const vault = newVault();
      const before = snapshot(vault.root);
      await expect(importBook(vault, bad(name), { filename: name })).rejects.toThrow(name);
      expect(snapshot(vault.root)).toEqual(before);
    },
  );

  test.skipIf(!HAVE_REAL)(
    "the index an import leaves (its cards taken as made) is the one its files give when read again",
    async () => {
      const vault = newVault();
      for (const name of [
        "sora_Eldoria_V10.6.0.json",
        "dootaang_lorebook_export.json",
        "st-card-Seraphina.png",
      ])
        await importBook(vault, real(name), {
          filename: name,
          kind: name.startsWith("st-") ? "entry" : "places",
        });
      // Every row as stored (the mtime it was compared at aside: a file seconds old is compared again).
      const rows = () => {
        const db = new Database(indexPath(vault), { readonly: true });
        try {
          return db.query("SELECT path, size, row, status FROM cards ORDER BY path").all();
        } finally {
          db.close();
        }
      };
      const imported = rows();
      expect(imported.length).toBeGreaterThan(700);
      for (const f of fs.readdirSync(path.dirname(indexPath(vault))))
        if (f.startsWith("index.db")) fs.rmSync(path.join(path.dirname(indexPath(vault)), f));
      loadIndex(vault);
      expect(rows()).toEqual(imported);
    },
  );

  test.skipIf(!HAVE_REAL)("the real Seraphina PNG imports its 4 entries", async () => {
    const vault = newVault();
    const result = await importBook(vault, real("st-card-Seraphina.png"), {
      filename: "st-card-Seraphina.png",
    });
    expect(result).toMatchObject({ format: "card-png", created: 4 });
    expect(readCard(vault, "entry", "glade").frontmatter.card).toMatchObject({ use_regex: true });
  });
});

describe("exportBook", () => {
  test("private sections never leave the vault, in any format", async () => {
    const vault = newVault();
    const text =
      "---\ntitle: Bob\nkeywords: [Bob]\n---\n## who\nA friend.\n\n## correspondence\nSECRET draft.\n";
    fs.writeFileSync(path.join(vault.root, "people", "Bob.md"), text);
    for (const format of ["st", "lorebook_v3", "card-json", "card-png", "charx"] as const) {
      const file = await exportBook(vault, format);
      const raw = Buffer.from(file.bytes).toString("latin1");
      const decoded = [...raw.matchAll(/(?:chara|ccv3)\0([A-Za-z0-9+/=]+)/g)].map((m) =>
        Buffer.from(m[1]!, "base64").toString(),
      );
      let unzipped = "";
      if (format === "charx") {
        const { ZipReader, Uint8ArrayReader, TextWriter } = await import("@zip.js/zip.js");
        const [entry] = await new ZipReader(new Uint8ArrayReader(file.bytes)).getEntries();
        if (entry && !entry.directory) unzipped = await entry.getData(new TextWriter());
      }
      const all = [raw, ...decoded, unzipped].join("\n");
      expect([format, all.includes("SECRET")]).toEqual([format, false]);
      expect([format, all.includes("A friend.")]).toEqual([format, true]);
    }
  });

  test.skipIf(!HAVE_REAL)("Eldoria through a vault and back gives every field back", async () => {
    const vault = newVault();
    await importBook(vault, real("st-worldinfo-Eldoria.json"), { filename: "Eldoria.json", kind: "place" });
    const original = json(real("st-worldinfo-Eldoria.json")) as { entries: Record<string, Raw> };
    const out = json((await exportBook(vault, "st")).bytes) as { entries: Record<string, Raw> };
    const byComment = new Map(Object.values(out.entries).map((e) => [e.comment, e]));
    for (const entry of Object.values(original.entries)) {
      const back = byComment.get(entry.comment);
      for (const [field, value] of Object.entries(entry))
        expect([entry.comment, field, back?.[field]]).toEqual([entry.comment, field, value]);
    }
  });
});

describe("ids across formats", () => {
  test.skipIf(!HAVE_REAL)(
    "a World Info book exported as a character book keeps its entries' ids and order, and back",
    async () => {
      const vault = newVault();
      await importBook(vault, real("st-worldinfo-Eldoria.json"), { filename: "Eldoria.json", kind: "place" });
      const original = json(real("st-worldinfo-Eldoria.json")) as { entries: Record<string, Raw> };
      const uids = Object.values(original.entries).map((e) => [e.uid, e.comment]);
      const book = json((await exportBook(vault, "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
      // The vault's example cards, which came from no book, go after the book's own with new ids.
      expect(book.data.entries.map((e) => [e.id, e.comment]).slice(0, uids.length)).toEqual(uids);
    },
  );

  test.skipIf(!HAVE_REAL)(
    "a character's book exported as World Info keeps its entries' ids as uids, in their order",
    async () => {
      const vault = newVault();
      await importBook(vault, real("st-card-Seraphina.chara.json"), { filename: "Seraphina.json" });
      const card = json(real("st-card-Seraphina.chara.json")) as {
        data: { character_book: { entries: Raw[] } };
      };
      const ids = card.data.character_book.entries.map((e) => [e.id, e.comment]);
      const out = json((await exportBook(vault, "st")).bytes) as { entries: Record<string, Raw> };
      const entries = Object.values(out.entries).slice(0, ids.length);
      expect(entries.map((e) => [e.uid, e.comment])).toEqual(ids);
      expect(entries.map((e) => e.displayIndex)).toEqual(ids.map((_, i) => i));
    },
  );
});

describe("the import and export commands", () => {
  const bun = path.resolve(import.meta.dir, "../../node_modules/.bin/bun");
  const main = path.resolve(import.meta.dir, "../../src/main.ts");
  function cli(args: string[]) {
    const p = Bun.spawnSync([bun, main, ...args], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env },
    });
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
  }

  test("import --json prints the counts; a second run keeps; --force overwrites", () => {
    const vault = newVault();
    const book = path.join(path.dirname(vault.root), "book.json");
    fs.writeFileSync(book, JSON.stringify(BOOK));
    const first = cli(["import", book, "--book", "main", "--vault", vault.root, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ created: 3, kept: 0, overwritten: 0, skipped: [] });
    expect(
      JSON.parse(cli(["import", book, "--book", "main", "--vault", vault.root, "--json"]).out),
    ).toMatchObject({ kept: 3 });
    const forced = cli(["import", book, "--book", "main", "--vault", vault.root, "--force"]);
    expect(forced.out).toMatch(/0 created, 0 kept, 3 overwritten, 0 skipped/);
  });

  test("a card's book settings are applied: on its cards, and into a fresh vault's new settings.yaml", () => {
    const vault = newVault();
    const file = path.resolve(import.meta.dir, "fixtures/risu-card.json");
    const run = cli(["import", file, "--book", "main", "--vault", vault.root]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      "book scan_depth 8: each card without a window of its own got scan_messages: 8",
    );
    expect(run.out).toContain(
      "book recursive_scanning false: each card without prevent_recursion of its own got prevent_recursion: true",
    );
    expect(run.out).toContain("the book's token_budget: written to settings.yaml as budget_tokens: 1200");
    expect(run.out).toContain('its character, for {{char}}: written to settings.yaml as char: "Mira"');
    const written = fs.readFileSync(path.join(vault.root, "settings.yaml"), "utf8");
    expect(parseSettings(written)).toEqual({ settings: { budgetTokens: 1200, char: "Mira" }, warnings: [] });
    const json = JSON.parse(cli(["import", file, "--book", "main", "--vault", vault.root, "--json"]).out);
    expect(json).toMatchObject({ character: "Mira" });
    // The vault has these settings now: a second import asks for none of them again, and changes none.
    expect(json.notes.filter((n: string) => n.includes("settings.yaml"))).toEqual([]);
    expect(fs.readFileSync(path.join(vault.root, "settings.yaml"), "utf8")).toBe(written);
    // One the person changed since is theirs: the import only says what the book would set.
    const changed = written.replace('char: "Mira"', 'char: "Someone"');
    fs.writeFileSync(path.join(vault.root, "settings.yaml"), changed);
    const again = JSON.parse(cli(["import", file, "--book", "main", "--vault", vault.root, "--json"]).out);
    expect(again.notes.filter((n: string) => n.includes("settings.yaml"))).toEqual([
      'its character, for {{char}}: to follow it, set char: "Mira" in settings.yaml',
    ]);
    expect(fs.readFileSync(path.join(vault.root, "settings.yaml"), "utf8")).toBe(changed);
  });

  test("a vault with cards of its own keeps its settings: the import names the settings to set", () => {
    const vault = newVault();
    fs.writeFileSync(path.join(vault.root, "people", "Own.md"), "---\nkeywords: [own]\n---\nMine.\n");
    const run = cli([
      "import",
      path.resolve(import.meta.dir, "fixtures/risu-card.json"),
      "--book",
      "main",
      "--vault",
      vault.root,
    ]);
    expect(run.out).toContain('its character, for {{char}}: to follow it, set char: "Mira" in settings.yaml');
    expect(fs.existsSync(path.join(vault.root, "settings.yaml"))).toBe(false);
  });

  test("a bad file exits 5 naming the file and the problem", () => {
    const vault = newVault();
    const file = path.resolve(import.meta.dir, "../fixtures/interop/bad-crc.png");
    const run = cli(["import", file, "--vault", vault.root]);
    expect(run.code).toBe(5);
    expect(run.err).toMatch(/bad-crc\.png: PNG chunk tEXt .* bad CRC/);
  });

  test("a directory given as the file is bad input (exit 5) naming it, as any file that cannot be read", () => {
    const vault = newVault();
    const run = cli(["import", path.dirname(vault.root), "--vault", vault.root]);
    expect(run.code).toBe(5);
    expect(run.err).toContain(`${path.dirname(vault.root)}: is a directory, not a file`);
  });

  test("export names each card file it could not read, and exports the rest", async () => {
    const vault = newVault();
    fs.writeFileSync(path.join(vault.root, "places", "broken.md"), "---\nkeywords: [unclosed\n---\nx\n");
    const out = path.join(path.dirname(vault.root), "out.json");
    const run = cli(["export", out, "--vault", vault.root]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("exported 6 cards");
    expect(run.out).toMatch(/ {2}skipped places\/broken\.md: frontmatter is not valid YAML: .*\n?$/);
    const asJson = JSON.parse(cli(["export", out, "--vault", vault.root, "--json"]).out);
    expect(asJson.skipped).toEqual([{ title: "places/broken.md", reason: expect.stringContaining("YAML") }]);
  });

  test.skipIf(!HAVE_REAL)("export says which book it took the cards of, once the vault has books", () => {
    const vault = newVault();
    const out = path.join(path.dirname(vault.root), "out.json");
    expect(cli(["export", out, "--vault", vault.root]).out).toStartWith(`exported 6 cards to ${out} (st)`);
    const book = path.join(path.dirname(vault.root), "Eldoria.json");
    fs.writeFileSync(book, real("st-worldinfo-Eldoria.json"));
    expect(cli(["import", book, "--vault", vault.root]).code).toBe(0);
    expect(cli(["export", out, "--vault", vault.root]).out).toStartWith(
      `exported 6 cards of the vault's own cards (--book NAME for one of its books: eldoria) to ${out} (st)`,
    );
    expect(cli(["export", out, "--book", "Eldoria", "--vault", vault.root]).out).toStartWith(
      `exported 4 cards of the book eldoria to ${out} (st)`,
    );
  });

  test("the progress bar redraws in place only when the percentage moves, and ends its line", () => {
    let text = "";
    const bar = progressBar({ write: (s: string) => (text += s) });
    for (let done = 0; done <= 400; done++) bar.update(done, 400);
    bar.end();
    const frames = text.split("\r").filter(Boolean);
    expect(frames).toHaveLength(101);
    expect(frames[0]).toBe(`[${".".repeat(30)}] 0%`);
    expect(frames[50]).toBe(`[${"#".repeat(15)}${".".repeat(15)}] 50%`);
    expect(frames[100]).toBe(`[${"#".repeat(30)}] 100%\n`);
  });

  test.skipIf(!Bun.which("script"))(
    "on a terminal the import shows the bar, piped only the summary line",
    () => {
      const vault = newVault();
      const book = path.join(path.dirname(vault.root), "book.json");
      fs.writeFileSync(book, JSON.stringify(BOOK));
      const command = [bun, main, "import", book, "--book", "main", "--vault", vault.root]
        .map((a) => `'${a}'`)
        .join(" ");
      const tty = Bun.spawnSync(["script", "-qec", command, "/dev/null"], { stdout: "pipe", stderr: "pipe" });
      const seen = tty.stdout.toString();
      expect(seen).toContain("] 100%");
      expect(seen).toContain("3 created");
      const piped = cli(["import", book, "--book", "main", "--vault", vault.root, "--force"]);
      expect(piped.err).toBe("");
      // The summary line, then the write checks' lines (this book has two cards titled Harbor); no bar.
      expect(piped.out.split("\n")[0]).toBe(
        `imported ${book} (st) as entry cards: 0 created, 0 kept, 3 overwritten, 0 skipped`,
      );
      expect(piped.out).not.toContain("%");
    },
  );

  test("export writes the file in the format its extension names", async () => {
    const vault = newVault();
    await importBook(vault, BOOK, { filename: "book.json" });
    const out = path.join(path.dirname(vault.root), "out.png");
    const run = cli(["export", out, "--vault", vault.root, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ format: "card-png", cards: 9 });
    expect(fs.readFileSync(out).subarray(1, 4).toString()).toBe("PNG");
    expect(cli(["export", out, "--vault", vault.root, "--format", "docx"]).code).toBe(2);
  });
});
