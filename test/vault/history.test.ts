// Card history (vault/history.ts): every write the vault makes records a version with its writer and
// its text before and after, under the lock; a damaged history.db is moved aside and rebuilt, and no
// failure of the history ever loses the card write. Reverting is a write of its own.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { recordChanges } from "../../src/vault/history.ts";
import {
  archiveCard,
  cardPath,
  createCard,
  HISTORY_CAP,
  placeAll,
  readHistory,
  readVersion,
  recoverImports,
  restoreCard,
  revertCard,
  STATE_DIR,
  updateCard,
  updateRecent,
  type Vault,
} from "../../src/vault/index.ts";
import { rejectsWith, tempVault } from "./_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const historyFile = (v: Vault) => path.join(v.root, STATE_DIR, "history.db");
const draft = (key: string, body = "## who\nA drummer.\n") => ({
  kind: "people",
  key,
  frontmatter: { title: key, keywords: [key.toLowerCase()] },
  body,
});
const read = (v: Vault, rel: string) => fs.readFileSync(path.join(v.root, rel), "utf8");

describe("every write records a version", () => {
  test("a card created, updated, archived and restored has four versions, newest first, each with its writer", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"), { writer: "api" });
    const created = read(vault, "people/Bob.md");
    await updateCard(vault, "people", "Bob", { body: "## who\nA drummer in a band.\n" }, { writer: "ui" });
    const updated = read(vault, "people/Bob.md");
    await archiveCard(vault, "people", "Bob", { writer: "mcp" });
    await restoreCard(vault, "people", "Bob", { writer: "cli" });
    const rows = readHistory(vault, "people", "Bob");
    expect(rows.map((r) => [r.action, r.writer])).toEqual([
      ["restore", "cli"],
      ["archive", "mcp"],
      ["update", "ui"],
      ["create", "api"],
    ]);
    expect(rows.map((r) => [r.before, r.after])).toEqual([
      [null, updated],
      [updated, null],
      [created, updated],
      [null, created],
    ]);
    // One sequence for the vault: the numbers rise with every write.
    expect(rows.map((r) => r.id)).toEqual([4, 3, 2, 1]);
  });

  test("a write that changes no byte records nothing", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    await updateRecent(vault, "people", "Bob", "Bought a snare.");
    await updateRecent(vault, "people", "Bob", "Bought a snare.");
    expect(readHistory(vault, "people", "Bob").map((r) => r.action)).toEqual(["update", "create"]);
  });

  test("a write without a writer is the command line's", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    expect(readHistory(vault, "people", "Bob")[0]!.writer).toBe("cli");
  });

  test(`a card keeps its newest ${HISTORY_CAP} versions; the numbers are never given again`, async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    for (let i = 0; i < HISTORY_CAP + 5; i++) await updateRecent(vault, "people", "Bob", `Note ${i}.`);
    const rows = readHistory(vault, "people", "Bob");
    expect(rows).toHaveLength(HISTORY_CAP);
    expect(rows[0]!.id).toBe(HISTORY_CAP + 6);
    expect(rows.at(-1)!.id).toBe(7);
    await createCard(vault, draft("Ann"));
    expect(readHistory(vault, "people", "Ann")[0]!.id).toBe(HISTORY_CAP + 7);
  });

  test("no history file is made until the first write, and reading a vault without one finds none", async () => {
    vault = tempVault(false);
    expect(readHistory(vault, "people", "Bob")).toEqual([]);
    expect(fs.existsSync(historyFile(vault))).toBe(false);
  });
});

describe("the card comes first", () => {
  test("a damaged history.db is moved aside, a new one records the write, and one line says so", async () => {
    vault = tempVault(false);
    fs.mkdirSync(path.join(vault.root, STATE_DIR), { recursive: true });
    fs.writeFileSync(historyFile(vault), "this is not a database, only text that is long enough to be read");
    const said: string[] = [];
    recordChanges(vault, "ui", [{ kind: "people", key: "Bob", action: "create", before: null, after: "x" }], {
      warn: (line) => said.push(line),
      now: 1234,
    });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("moved to");
    expect(fs.existsSync(`${historyFile(vault)}.corrupt-1234`)).toBe(true);
    expect(readHistory(vault, "people", "Bob").map((r) => r.writer)).toEqual(["ui"]);
  });

  test("a history that cannot be written at all leaves the card written and says so on stderr", async () => {
    vault = tempVault(false);
    fs.mkdirSync(historyFile(vault), { recursive: true }); // a folder where the file should be
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => said.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      await createCard(vault, draft("Bob"));
    } finally {
      process.stderr.write = write;
    }
    expect(read(vault, "people/Bob.md")).toContain("A drummer.");
    expect(said.join("")).toContain("its version was not recorded");
  });

  test("reading a damaged history is an io_error naming the file, and changes nothing", async () => {
    vault = tempVault(false);
    fs.mkdirSync(path.join(vault.root, STATE_DIR), { recursive: true });
    fs.writeFileSync(historyFile(vault), "not a database either, but plenty of bytes to look at here");
    const err = await rejectsWith("io_error", () => readHistory(vault, "people", "Bob"));
    expect(err.message).toContain("history.db");
    expect(fs.readFileSync(historyFile(vault), "utf8")).toStartWith("not a database");
  });
});

describe("imports record a version per card", () => {
  const place = (v: Vault, keys: string[], replaces: boolean, what: string) =>
    keys.map((k) => ({
      target: cardPath(v, "people", k),
      replaces,
      text: `---\ntitle: ${k}\n---\n${what}\n`,
    }));

  test("a placed card's text before is the card it replaced, and its writer is the import", async () => {
    vault = tempVault(false);
    await placeAll(vault, place(vault, ["A", "B"], false, "first"));
    await placeAll(vault, place(vault, ["A"], true, "second"));
    const rows = readHistory(vault, "people", "A");
    expect(rows.map((r) => [r.writer, r.action, r.before, r.after])).toEqual([
      ["import", "import", "---\ntitle: A\n---\nfirst\n", "---\ntitle: A\n---\nsecond\n"],
      ["import", "import", null, "---\ntitle: A\n---\nfirst\n"],
    ]);
  });

  test("a batch may say it is another writer's update (repair)", async () => {
    vault = tempVault(false);
    await placeAll(vault, place(vault, ["A"], false, "x"), undefined, { writer: "cli", action: "update" });
    expect(readHistory(vault, "people", "A").map((r) => [r.writer, r.action])).toEqual([["cli", "update"]]);
  });

  test("an import finished by recovery records its versions as the import would have", () => {
    vault = tempVault(false);
    // What a process killed after its plan counted leaves: staged files and the plan.
    const stage = path.join(vault.root, STATE_DIR, "import-1-abcd");
    fs.mkdirSync(path.join(stage, "old"), { recursive: true });
    fs.mkdirSync(path.join(vault.root, "people"), { recursive: true });
    fs.writeFileSync(path.join(stage, "0.md"), "---\ntitle: A\n---\nstaged\n");
    const plan = {
      moves: [{ staged: "0.md", target: "people/A.md", replaces: false }],
      record: { writer: "import", action: "import" },
    };
    fs.writeFileSync(path.join(stage, "plan.json"), JSON.stringify(plan));
    expect(recoverImports(vault)).toBe(1);
    expect(readHistory(vault, "people", "A").map((r) => [r.writer, r.after])).toEqual([
      ["import", "---\ntitle: A\n---\nstaged\n"],
    ]);
  });
});

describe("revert", () => {
  test("puts the card back as it was after a version, recorded as a revert naming it", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    const first = read(vault, "people/Bob.md");
    await updateRecent(vault, "people", "Bob", "Moved to Lyon.");
    const { changed } = await revertCard(vault, "people", "Bob", 1, { writer: "ui" });
    expect(changed).toBe(true);
    expect(read(vault, "people/Bob.md")).toBe(first);
    const newest = readHistory(vault, "people", "Bob")[0]!;
    expect([newest.action, newest.writer, newest.reverted_to, newest.after]).toEqual([
      "revert",
      "ui",
      1,
      first,
    ]);
  });

  test("a card already as that version is not written again", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    expect((await revertCard(vault, "people", "Bob", 1)).changed).toBe(false);
    expect(readHistory(vault, "people", "Bob")).toHaveLength(1);
  });

  test("a card changed since it was read is a conflict carrying the current card, and stays as it is", async () => {
    vault = tempVault(false);
    const card = await createCard(vault, draft("Bob"));
    await updateRecent(vault, "people", "Bob", "Moved.");
    const now = read(vault, "people/Bob.md");
    const err = await rejectsWith("conflict", () =>
      revertCard(vault, "people", "Bob", 1, { mtime: card.mtime }),
    );
    expect((err.data as { key: string }).key).toBe("Bob");
    expect(read(vault, "people/Bob.md")).toBe(now);
  });

  test.each([
    ["a version of another card", "Ann", 1, "not_found"],
    ["a version that does not exist", "Bob", 99, "not_found"],
    ["the version that archived it", "Bob", 3, "invalid_input"],
  ])("%s is refused", async (_what, key, version, code) => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    await createCard(vault, draft("Ann"));
    await archiveCard(vault, "people", "Bob");
    await restoreCard(vault, "people", "Bob");
    await rejectsWith(code, () => revertCard(vault, "people", key, version));
  });

  test("an archived card is refused, naming where it is, and stays archived", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    await archiveCard(vault, "people", "Bob");
    const err = await rejectsWith("not_found", () => revertCard(vault, "people", "Bob", 1));
    expect(err.message).toContain("_archive/people/Bob.md");
    expect(fs.existsSync(path.join(vault.root, "_archive", "people", "Bob.md"))).toBe(true);
  });

  test("a version that would not read back as a card is refused before anything is written", async () => {
    vault = tempVault(false);
    await createCard(vault, draft("Bob"));
    const db = new Database(historyFile(vault));
    db.run("UPDATE versions SET after = '---\nkeywords: [unclosed\n---\n' WHERE id = 1");
    db.close();
    const now = read(vault, "people/Bob.md");
    await rejectsWith("parse_error", () => revertCard(vault, "people", "Bob", 1));
    expect(read(vault, "people/Bob.md")).toBe(now);
    expect(readVersion(vault, 2)).toBeNull();
  });
});
