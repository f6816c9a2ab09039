/**
 * A SillyTavern user with two characters, each with an imported card and book, and a shared world
 * book, talking to both through one compiled gateway (docs/DEPLOYMENT.md "One process with many
 * books"): every conversation gets its character's book and the world, never the other character's,
 * in `try`, through the gateway (the official openai client, SillyTavern's kind of system prompt) and
 * in the editor's API, which lists the books and the conversations that read each. The cards are real
 * files: SillyTavern's own Seraphina card, a RisuAI card (Mira), a SillyTavern world book.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { type Editor, startEditor } from "./_writers.ts";

const HAVE = haveRealFixture("books end to end", "st-card-Seraphina.png");
const MIRA = path.resolve(import.meta.dir, "../interop/fixtures/risu-card.json");
/** Seraphina's lorebook "Eldoria" (her card's), Mira's always-on rule, the world book's always-on tag. */
const SERAPHINA_GLADE = "What is the glade?";
const MIRA_RULE = "Mira never leaves the lighthouse.";
const WORLD_TAG = "Ambient Weather";

let home: string;
let vault: string;
let upstream: FakeUpstream;
let gateway: Bun.Subprocess<"ignore", "pipe", "pipe">;
let base: string;
let editor: Editor | undefined;

/** SillyTavern's default main prompt, then the character's description (as its prompt manager sends). */
const systemOf = (name: string) =>
  `Write ${name}'s next reply in a fictional chat between ${name} and User.\n\n${name} is a guardian of her home.`;

beforeAll(async () => {
  if (!HAVE) return;
  const bin = await ensureBinary();
  home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-books-"));
  vault = path.join(home, "vault");
  const lc = (...args: string[]) => runBinary([...args, "--vault", vault], { env: { HOME: home } });
  expect((await lc("init", vault)).code).toBe(0);
  for (const file of [
    path.join(REAL_FIXTURES, "st-card-Seraphina.png"),
    MIRA,
    path.join(REAL_FIXTURES, "hxh_Weather_Director.json"),
  ]) {
    const r = await lc("import", file);
    expect({ file, code: r.code, err: r.stderr }).toEqual({ file, code: 0, err: "" });
  }
  upstream = startFakeUpstream();
  gateway = Bun.spawn(
    [bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0", "--json"],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", HOME: home },
    },
  );
  const reader = gateway.stdout.getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the gateway did not start: ${await new Response(gateway.stderr).text()}`);
    line += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  base = (JSON.parse(line.split("\n")[0]!) as { base_url: string }).base_url;
  editor = await startEditor(bin, vault, home);
}, 120_000);

afterAll(async () => {
  if (!HAVE) return;
  gateway?.kill();
  await gateway?.exited;
  await editor?.kill();
  await upstream?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!HAVE)("two characters and a world, through one gateway", () => {
  test("the imports made a book per character, bound to her, and the world book", async () => {
    const r = await runBinary(["list", "--vault", vault, "--json"], { env: { HOME: home } });
    const books = (JSON.parse(r.stdout) as { books: { name: string; characters: string[]; cards: number }[] })
      .books;
    expect(books.map((b) => [b.name, b.characters, b.cards])).toEqual([
      ["hxh_weather_director", [], 1],
      ["mira", ["Mira"], 2],
      ["seraphina", ["Seraphina"], 4],
    ]);
  });

  test("each conversation, as SillyTavern sends it, reads its character's book and the world, never the other's", async () => {
    const client = new OpenAI({ baseURL: base, apiKey: "sk-test" });
    const ask = async (name: string, line: string) => {
      await client.chat.completions.create({
        model: "gpt-test",
        messages: [
          { role: "system", content: systemOf(name) },
          { role: "user", content: line },
        ],
      });
      return upstream.received.at(-1)!.body;
    };
    const seraphina = await ask("Seraphina", "Is the glade safe from the lighthouse keeper?");
    expect(seraphina).toContain(SERAPHINA_GLADE);
    expect(seraphina).toContain(WORLD_TAG);
    expect(seraphina).not.toContain(MIRA_RULE);
    const mira = await ask("Mira", "Is the glade safe from the lighthouse keeper?");
    expect(mira).toContain(MIRA_RULE);
    expect(mira).toContain(WORLD_TAG);
    expect(mira).not.toContain(SERAPHINA_GLADE);
  });

  test("try and explain with no character say which books bound to one they did not read, and how to read them", async () => {
    const r = await runBinary(["try", "the glade and the lighthouse", "--vault", vault], {
      env: { HOME: home },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Not read here: the book seraphina, bound to Seraphina (read in that character's conversations; --char "Seraphina" reads it here).`,
    );
    expect(r.stdout).toContain("Not read here: the book mira, bound to Mira");
    const as = await runBinary(["try", "the glade", "--char", "Seraphina", "--vault", vault], {
      env: { HOME: home },
    });
    expect(as.stdout).not.toContain("the book seraphina, bound");
    expect(as.stdout).toContain("Not read here: the book mira");
    const door = await runBinary(["explain", "the glade", "--vault", vault], { env: { HOME: home } });
    expect(door.stdout).toContain("Not read here: the book seraphina, bound to Seraphina");
    const named = await runBinary(["explain", "the glade", "--book", "seraphina", "--vault", vault], {
      env: { HOME: home },
    });
    expect(named.stdout).not.toContain("Not read here");
  });

  test("check with no --book checks the vault's own cards and then every book, each book.yaml a setting", async () => {
    const r = await runBinary(["check", "--vault", vault, "--json"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      cards: number;
      books: { book: string; cards: number; files: { settings: string[]; skipped: { path: string }[] } }[];
    };
    expect(report.books.map((b) => [b.book, b.cards])).toEqual([
      ["hxh_weather_director", 1],
      ["mira", 2],
      ["seraphina", 4],
    ]);
    for (const b of report.books) {
      expect(b.files.settings).toContain("book.yaml");
      expect(b.files.skipped.map((s) => s.path)).not.toContain("book.yaml");
    }
    const text = await runBinary(["check", "--vault", vault], { env: { HOME: home } });
    expect(text.stdout).toContain("Book seraphina (books/seraphina/):\n");
    const one = await runBinary(["check", "--vault", vault, "--book", "mira", "--json"], {
      env: { HOME: home },
    });
    expect(JSON.parse(one.stdout)).not.toHaveProperty("books");
  });

  test("try with each character's name reads the same books", async () => {
    const tryAs = async (char: string) => {
      const r = await runBinary(
        ["try", "the glade and the lighthouse", "--char", char, "--json", "--vault", vault],
        {
          env: { HOME: home },
        },
      );
      return JSON.parse(r.stdout) as { books: string[]; context: string };
    };
    const seraphina = await tryAs("Seraphina");
    expect(seraphina.books).toEqual(["main", "hxh_weather_director", "seraphina"]);
    expect(seraphina.context).not.toContain(MIRA_RULE);
    const mira = await tryAs("Mira");
    expect(mira.books).toEqual(["main", "hxh_weather_director", "mira"]);
    expect(mira.context).toContain(MIRA_RULE);
    expect(mira.context).not.toContain(SERAPHINA_GLADE);
  });

  test("the editor's API lists the books, each with the conversations that read it, and each book's cards", async () => {
    const body = (await (await editor!.api("GET", "/api/books")).json()) as {
      books: { name: string; conversations: { id: string }[] }[];
    };
    const readers = Object.fromEntries(body.books.map((b) => [b.name, b.conversations.length]));
    expect(readers).toEqual({ main: 2, hxh_weather_director: 2, mira: 1, seraphina: 1 });
    const seraphina = body.books.find((b) => b.name === "seraphina")!.conversations[0]!.id;
    const mira = body.books.find((b) => b.name === "mira")!.conversations[0]!.id;
    expect(seraphina).not.toBe(mira);
    const cards = (await (await editor!.api("GET", "/api/cards?book=mira")).json()) as {
      cards: { title: string }[];
    };
    expect(cards.cards.map((c) => c.title).sort()).toEqual(["Lamp", "Rules"]);
  });
});
