/**
 * An import goes into the vault's books (src/interop/_into-book.ts): SillyTavern's own Seraphina card
 * makes the book `seraphina`, bound to her, holding her lorebook's entries; a lorebook makes a book
 * named after it; `book` chooses another, `main` the vault's own cards as before books. Importing again
 * updates the same book.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardTextFromPng } from "../../src/interop/_png.ts";
import { exportBook, importIntoBook, parseBook } from "../../src/interop/index.ts";
import { initVault, loadIndex, openVault, readBooks } from "../../src/vault/index.ts";
import { HAVE_REAL, real, tempDir } from "./_support.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function newVault(): string {
  const root = path.join(tempDir(), "vault");
  dirs.push(path.dirname(root));
  initVault(root);
  return root;
}

const cardsOf = (root: string) =>
  loadIndex(openVault(root))
    .cards.map((c) => c.title)
    .sort();

describe.skipIf(!HAVE_REAL)("importing into books", () => {
  test("SillyTavern's Seraphina card makes the book seraphina, bound to her, holding her lorebook Eldoria", async () => {
    const root = newVault();
    const before = cardsOf(root);
    const result = await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    expect(result.into).toEqual({
      name: "seraphina",
      root: path.join(root, "books", "seraphina"),
      made: true,
      character: "Seraphina",
    });
    expect(result.book.name).toBe("Eldoria");
    expect(result.created).toBe(4);
    const seraphina = readBooks(root).find((b) => b.name === "seraphina")!;
    expect(seraphina.characters).toEqual(["Seraphina"]);
    expect(cardsOf(seraphina.root)).toEqual(["eldoria", "glade", "power", "shadowfang"]);
    // The vault's own cards are as they were.
    expect(cardsOf(root)).toEqual(before);
    expect(result.notes.join("\n")).toContain("read in Seraphina's conversations");
    // Her lorebook's own settings went into her book's settings.yaml, and the note says whose.
    expect(result.notes).toContain(
      'its character, for {{char}}: written to books/seraphina/settings.yaml as char: "Seraphina"',
    );
    expect(fs.readFileSync(path.join(seraphina.root, "settings.yaml"), "utf8")).toStartWith(
      "# Seraphina.png's own settings, written by lorecards import into a new book.",
    );
  });

  test("importing the card again updates her book: what is there is kept, --force replaces it", async () => {
    const root = newVault();
    await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    const again = await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    expect([again.into.made, again.created, again.kept]).toEqual([false, 0, 4]);
    const forced = await importIntoBook(root, real("st-card-Seraphina.png"), {
      filename: "x.png",
      force: true,
    });
    expect(forced.overwritten).toBe(4);
    expect(readBooks(root).map((b) => b.name)).toEqual(["main", "seraphina"]);
  });

  test("her card is kept in her book, and the book exported as a card is her again, with the book as it is now", async () => {
    const root = newVault();
    const png = real("st-card-Seraphina.png");
    const result = await importIntoBook(root, png, { filename: "Seraphina.png" });
    const book = path.join(root, "books", "seraphina");
    expect(fs.readFileSync(path.join(book, "character.png")).equals(png)).toBe(true);
    expect(result.notes.join("\n")).toContain("her card kept as character.png");
    const glade = path.join(book, "glade.md");
    fs.writeFileSync(glade, fs.readFileSync(glade, "utf8").replace(/\n*$/, "\nA new path leads north.\n"));
    // No --card: the kept card is the base.
    const out = await exportBook(openVault(book), "card-png");
    const card = (text: string) => JSON.parse(text) as { data: Record<string, unknown> };
    const before = card(cardTextFromPng(png, "before").text).data;
    const after = card(cardTextFromPng(out.bytes, "after").text).data;
    for (const field of ["name", "description", "first_mes", "personality", "scenario"])
      expect([field, after[field]]).toEqual([field, before[field]]);
    const back = await parseBook(out.bytes, { filename: "out.png" });
    expect(back.character).toBe("Seraphina");
    expect(back.entries.find((e) => e.title === "glade")?.body).toContain("A new path leads north.");
  });

  test("exported as CHARX, her picture goes with her: an icon file that card.json's assets name", async () => {
    const root = newVault();
    const png = real("st-card-Seraphina.png");
    await importIntoBook(root, png, { filename: "Seraphina.png" });
    const out = await exportBook(openVault(path.join(root, "books", "seraphina")), "charx");
    const { ZipReader, Uint8ArrayReader, Uint8ArrayWriter } = await import("@zip.js/zip.js");
    const files = new Map<string, Uint8Array>();
    for (const entry of await new ZipReader(new Uint8ArrayReader(out.bytes)).getEntries())
      if (!entry.directory) files.set(entry.filename, await entry.getData(new Uint8ArrayWriter()));
    expect([...files.keys()].sort()).toEqual(["assets/icon/images/main.png", "card.json"]);
    const card = JSON.parse(new TextDecoder().decode(files.get("card.json"))) as {
      data: Record<string, unknown>;
    };
    expect(card.data.assets).toEqual([
      { type: "icon", uri: "embeded://assets/icon/images/main.png", name: "main", ext: "png" },
    ]);
    // The picture is the PNG's own, without the card text it carried.
    const icon = Buffer.from(files.get("assets/icon/images/main.png")!);
    expect(icon.subarray(0, 8).equals(png.subarray(0, 8))).toBe(true);
    expect(icon.includes("ccv3")).toBe(false);
    expect(icon.length).toBeLessThan(png.length);
    const back = await parseBook(out.bytes, { filename: "out.charx" });
    expect(back.character).toBe("Seraphina");
  });

  test("a kept card damaged since is refused by name, and --card still takes its place", async () => {
    const root = newVault();
    await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    const book = path.join(root, "books", "seraphina");
    fs.writeFileSync(path.join(book, "character.png"), "junk");
    await expect(exportBook(openVault(book), "card-png")).rejects.toThrow(
      `${path.join(book, "character.png")}: base card is not a PNG, a CHARX or valid JSON`,
    );
    const base = { bytes: real("st-card-Seraphina.png"), filename: "Seraphina.png" };
    const out = await exportBook(openVault(book), "card-png", { base });
    expect((await parseBook(out.bytes, { filename: "out.png" })).character).toBe("Seraphina");
  });

  test("a kept card that became a link to a file outside the vault is refused by name, not read", async () => {
    const root = newVault();
    await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    const kept = path.join(root, "books", "seraphina", "character.png");
    const outside = path.join(path.dirname(root), "someone-else.png");
    fs.writeFileSync(outside, real("st-card-Seraphina.png"));
    fs.rmSync(kept);
    fs.symlinkSync(outside, kept);
    await expect(exportBook(openVault(path.dirname(kept)), "card-png")).rejects.toThrow(
      `${kept} is a symbolic link; lorecards never follows links inside the vault`,
    );
  });

  test("the kept card is kept on a second import and replaced with --force, as her cards are", async () => {
    const root = newVault();
    const kept = path.join(root, "books", "seraphina", "character.png");
    await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    fs.writeFileSync(kept, "edited by hand");
    const again = await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png" });
    expect(fs.readFileSync(kept, "utf8")).toBe("edited by hand");
    expect(again.notes).toContain(
      "the card kept as character.png in the book is left as it is (--force replaces it)",
    );
    await importIntoBook(root, real("st-card-Seraphina.png"), { filename: "Seraphina.png", force: true });
    expect(fs.readFileSync(kept).equals(real("st-card-Seraphina.png"))).toBe(true);
  });

  test("a card in JSON is kept as JSON, and exported as card JSON it is her again", async () => {
    const root = newVault();
    await importIntoBook(root, real("st-card-Seraphina.chara.json"), { filename: "Seraphina.json" });
    const book = path.join(root, "books", "seraphina");
    expect(fs.readdirSync(book).filter((f) => f.startsWith("character."))).toEqual(["character.json"]);
    const out = await exportBook(openVault(book), "card-json");
    const data = (JSON.parse(new TextDecoder().decode(out.bytes)) as { data: { name: string } }).data;
    expect(data.name).toBe("Seraphina");
  });

  test("a world book keeps no card; exported, its lorebook and the minimal card carrying it bear its title", async () => {
    const root = newVault();
    await importIntoBook(root, real("st-worldinfo-Eldoria.json"), { filename: "/tmp/Eldoria.json" });
    const book = path.join(root, "books", "eldoria");
    expect(fs.readdirSync(book).filter((f) => f.startsWith("character."))).toEqual([]);
    fs.writeFileSync(path.join(book, "book.yaml"), "title: The Eldoria Forest\n");
    const named = async (format: "card-json" | "lorebook_v3") => {
      const out = await exportBook(openVault(book), format);
      const data = (
        JSON.parse(new TextDecoder().decode(out.bytes)) as {
          data: { name: string; character_book?: { name: string } };
        }
      ).data;
      return format === "card-json" ? [data.name, data.character_book?.name] : [data.name];
    };
    expect(await named("card-json")).toEqual(["The Eldoria Forest", "The Eldoria Forest"]);
    expect(await named("lorebook_v3")).toEqual(["The Eldoria Forest"]);
  });

  test.each(["card-png", "card-json", "charx"] as const)(
    "a world book exported as a card (%s) and imported into another vault is a world book again, bound to no one",
    async (format) => {
      const from = newVault();
      await importIntoBook(from, real("st-worldinfo-Eldoria.json"), { filename: "/tmp/Eldoria.json" });
      const out = await exportBook(openVault(path.join(from, "books", "eldoria")), format);
      const file = path.join(
        path.dirname(from),
        `eldoria.${format === "card-json" ? "json" : format === "charx" ? "charx" : "png"}`,
      );
      fs.writeFileSync(file, out.bytes);
      const to = newVault();
      const result = await importIntoBook(to, fs.readFileSync(file), { filename: file });
      expect(result.character).toBeUndefined();
      const eldoria = readBooks(to).find((b) => b.name === "eldoria")!;
      expect([eldoria.characters, eldoria.active]).toEqual([[], "auto"]);
      const settings = path.join(to, "books", "eldoria", "settings.yaml");
      expect(fs.existsSync(settings) ? fs.readFileSync(settings, "utf8") : "").not.toContain("char:");
      expect(cardsOf(path.join(to, "books", "eldoria"))).toEqual(
        cardsOf(path.join(from, "books", "eldoria")),
      );
    },
  );

  test("a book whose entries speak of {{user}} says so when no name is set for the person, and not once one is", async () => {
    const root = newVault();
    const file = { filename: "/tmp/sora_Eldoria_V10.6.0.json" };
    const said = (notes: string[]) => notes.filter((n) => n.includes("speak of {{user}}"));
    const first = await importIntoBook(root, real("sora_Eldoria_V10.6.0.json"), file);
    expect(said(first.notes)).toEqual([
      '3 of its entries speak of {{user}}, and no name is set for you: the model reads "{{user}}" as written. ' +
        "`user: YOUR NAME` in settings.yaml names you (SillyTavern's persona name)",
    ]);
    fs.appendFileSync(path.join(root, "settings.yaml"), "user: Ann\n");
    const again = await importIntoBook(root, real("sora_Eldoria_V10.6.0.json"), { ...file, force: true });
    expect(said(again.notes)).toEqual([]);
  });

  test("a world book makes a book named after its file, read in every conversation", async () => {
    const root = newVault();
    const result = await importIntoBook(root, real("st-worldinfo-Eldoria.json"), {
      filename: "/tmp/Eldoria.json",
    });
    expect(result.into).toMatchObject({ name: "eldoria", made: true });
    const eldoria = readBooks(root).find((b) => b.name === "eldoria")!;
    expect([eldoria.characters, eldoria.active]).toEqual([[], "auto"]);
    // Said, with how to keep it for the conversations that ask: a new user found one world's
    // always-on cards in another world's chat. Once: imported again, the book is not new.
    const said =
      "read in every conversation, beside the vault's other books: `active: asked` in books/eldoria/book.yaml " +
      "reads it only where a conversation names it (docs/BOOKS.md)";
    expect(result.notes).toContain(said);
    const again = await importIntoBook(root, real("st-worldinfo-Eldoria.json"), {
      filename: "/tmp/Eldoria.json",
    });
    expect(again.notes).not.toContain(said);
  });

  test("a book named is the book imported into, made when new; main is the vault's own cards", async () => {
    const root = newVault();
    const into = await importIntoBook(root, real("hxh_Weather_Director.json"), {
      filename: "w.json",
      book: "World",
    });
    expect(into.into.name).toBe("world");
    expect(cardsOf(path.join(root, "books", "world"))).toHaveLength(1);
    const own = await importIntoBook(root, real("hxh_Weather_Director.json"), {
      filename: "w.json",
      book: "main",
    });
    expect(own.into).toEqual({ name: "main", root, made: false });
    expect(fs.existsSync(path.join(root, "books", "main"))).toBe(false);
    await expect(
      importIntoBook(root, real("hxh_Weather_Director.json"), { filename: "w.json", book: "a/b" }),
    ).rejects.toThrow("a book's name");
  });
});
