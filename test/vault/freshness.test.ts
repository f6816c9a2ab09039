// When an edit is seen (README "When an edit is seen"): a load compares only the kind folders whose
// mtime moved, so a create, a delete, a rename and an atomic save (temp file renamed over the card)
// are seen by the very next load; an edit written into the file in place is seen by the next full
// check (`full`, or a cold load once the last full check is older than FULL_CHECK_MS).
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  FULL_CHECK_MS,
  indexPath,
  loadIndex,
  openVault,
  updateCard,
  type Vault,
} from "../../src/vault/index.ts";
import { backdate, cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let temp: TempVault | undefined;
afterEach(() => temp?.remove());

const card = (title: string, extra = "") =>
  cardText(`title: ${title}\nkeywords: [${title}]${extra}`, "Text.\n");

/** A vault of three settled cards whose index has just been built and fully checked. */
function settledVault(): Vault {
  temp = tempVault({
    "people/Alice.md": card("Alice"),
    "people/Bob.md": card("Bob"),
    "places/Cafe.md": card("Cafe"),
  });
  backdate(temp.root);
  const vault = openVault(temp.root);
  loadIndex(vault, { check: "all" });
  return vault;
}

const titles = (vault: Vault, full = false) =>
  loadIndex(vault, { check: full ? "all" : "changed" }).cards.map((c) => c.title);

/** Write `text` to `rel` the way an atomic saver does: a temp file in the same folder, renamed over it. */
function atomicSave(vault: Vault, rel: string, text: string): void {
  const file = path.join(vault.root, rel);
  fs.writeFileSync(`${file}.tmp~`, text);
  fs.renameSync(`${file}.tmp~`, file);
}

/** Rewrite `rel` in place (same inode), then move its mtime into the past, beyond the racy window. */
function inPlaceEdit(vault: Vault, rel: string, text: string): void {
  const file = path.join(vault.root, rel);
  const fd = fs.openSync(file, "r+");
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, text);
  fs.closeSync(fd);
  const then = new Date(Date.now() - 5000);
  fs.utimesSync(file, then, then);
}

/** Changes that move their folder's mtime, and the titles the next load gives. */
const NAMED_CHANGES: [string, (v: Vault) => void, string[]][] = [
  [
    "a created card",
    (v: Vault) => fs.writeFileSync(path.join(v.root, "people/Carol.md"), card("Carol")),
    ["Alice", "Bob", "Carol", "Cafe"],
  ],
  ["a deleted card", (v: Vault) => fs.rmSync(path.join(v.root, "people/Bob.md")), ["Alice", "Cafe"]],
  [
    "a renamed card",
    (v: Vault) => fs.renameSync(path.join(v.root, "people/Bob.md"), path.join(v.root, "people/Robert.md")),
    ["Alice", "Bob", "Cafe"],
  ],
  ["an atomic save", (v: Vault) => atomicSave(v, "people/Bob.md", card("Bobby")), ["Alice", "Bobby", "Cafe"]],
];

describe("when an edit is seen", () => {
  test.each(NAMED_CHANGES)("%s is seen by the very next load", (_name, change, expected) => {
    const vault = settledVault();
    change(vault);
    expect(titles(vault)).toEqual(expected);
  });

  test.each(NAMED_CHANGES)(
    "%s is seen by the next load that looks for edits written in place",
    (_name, change, expected) => {
      const vault = settledVault();
      change(vault);
      expect(loadIndex(vault, { inPlace: true }).cards.map((c) => c.title)).toEqual(expected);
    },
  );

  test("a load that looks for edits written in place stats every file, but lists only the folders whose names changed", () => {
    const vault = settledVault();
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    fs.writeFileSync(path.join(vault.root, "places/Park.md"), card("Park"));
    const listed = spyOn(fs, "readdirSync");
    try {
      const index = loadIndex(vault, { inPlace: true });
      expect(index.cards.map((c) => c.title)).toEqual(["Alice", "Bobby", "Cafe", "Park"]);
      // The state folder aside (a load looks there for what an import or a killed write left).
      const folders = listed.mock.calls.map(([dir]) => path.relative(vault.root, String(dir)));
      expect(folders.filter((dir) => dir !== ".lorecards")).toEqual(["places"]);
    } finally {
      listed.mockRestore();
    }
  });

  test("a renamed card is found under its new path, and its old path is gone", () => {
    const vault = settledVault();
    fs.renameSync(path.join(vault.root, "people/Bob.md"), path.join(vault.root, "people/Robert.md"));
    const index = loadIndex(vault);
    expect(index.cards.map((c) => c.path)).toEqual(["people/Alice.md", "people/Robert.md", "places/Cafe.md"]);
    expect(index.entries.meta("people/Bob.md")).toBeUndefined();
  });

  test("a load of a settled, unchanged vault stats folders only: it parses nothing and writes nothing", () => {
    const vault = settledVault();
    const before = fs.statSync(`${indexPath(vault)}-wal`).mtimeMs;
    const index = loadIndex(vault);
    expect(index.parsed).toBe(0);
    expect(fs.statSync(`${indexPath(vault)}-wal`).mtimeMs).toBe(before);
  });

  test("an edit written in place is not seen by a quick load, and is seen by a full check", () => {
    const vault = settledVault();
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    expect(titles(vault)).toEqual(["Alice", "Bob", "Cafe"]);
    expect(titles(vault, true)).toEqual(["Alice", "Bobby", "Cafe"]);
  });

  test("an edit written in place is seen by the first load after the last full check grew old", () => {
    const vault = settledVault();
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    const db = new Database(indexPath(vault));
    db.query("UPDATE meta SET value = ? WHERE name = 'checked'").run(
      String(Date.now() - FULL_CHECK_MS - 1000),
    );
    db.close();
    expect(titles(vault)).toEqual(["Alice", "Bobby", "Cafe"]);
  });

  test("a load never writes a file's older text over a newer one another load recorded after it read the file", () => {
    const vault = settledVault();
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    // A full check (a server's refresher, a process of its own) parses Bob; before it writes what it
    // found, Bob is written in place again and another load (the server's, told by its watcher) records it.
    let rewritten = false;
    const rewriteBob = (done: number, total: number) => {
      if (done < total || rewritten) return; // the last file seen: places/Cafe, after people/ was read
      rewritten = true;
      inPlaceEdit(vault, "people/Bob.md", card("Robert", "\npriority: 9"));
      loadIndex(openVault(vault.root), { check: "none", touched: ["people/Bob.md"] });
    };
    loadIndex(vault, { check: "all", progress: rewriteBob });
    expect(rewritten).toBe(true);
    expect(loadIndex(vault, { check: "none" }).cards.map((c) => c.title)).toEqual([
      "Alice",
      "Robert",
      "Cafe",
    ]);
    expect(titles(vault)).toEqual(["Alice", "Robert", "Cafe"]);
  });

  test("a file changed within the racy window is compared again by the next load", () => {
    const vault = settledVault();
    const file = path.join(vault.root, "people/Carol.md");
    // Both writes land in the same clock tick: the file and its folder keep the same mtimes, and
    // the two texts have the same size, so only a second look at the file can tell them apart.
    const tick = new Date(Date.now() + 60_000); // far enough ahead that a slow load still falls in its window
    const writeInTick = (text: string) => {
      fs.writeFileSync(file, text);
      fs.utimesSync(file, tick, tick);
      fs.utimesSync(path.dirname(file), tick, tick);
    };
    writeInTick(card("Carol"));
    expect(titles(vault)).toContain("Carol");
    writeInTick(card("Carla"));
    expect(titles(vault)).toContain("Carla");
  });

  test("the stamp moves with every change and stays put without one", () => {
    const vault = settledVault();
    const first = loadIndex(vault).stamp;
    expect(loadIndex(vault).stamp).toBe(first);
    atomicSave(vault, "people/Bob.md", card("Bobby"));
    const second = loadIndex(vault).stamp;
    expect(second).not.toBe(first);
    fs.rmSync(path.join(vault.root, "places/Cafe.md"));
    expect(loadIndex(vault).stamp).not.toBe(second);
  });

  test("what changed since a version is told by path, deletions included", () => {
    const vault = settledVault();
    const before = loadIndex(vault);
    atomicSave(vault, "people/Bob.md", card("Bobby"));
    fs.rmSync(path.join(vault.root, "places/Cafe.md"));
    fs.writeFileSync(path.join(vault.root, "people/Carol.md"), card("Carol"));
    const after = loadIndex(vault);
    const changes = after.changesSince(before.stamp)!;
    expect(changes.changed.sort()).toEqual(["people/Bob.md", "people/Carol.md"]);
    expect(changes.gone).toEqual(["places/Cafe.md"]);
    expect(after.changesSince("another-epoch.0")).toBeUndefined();
    after.forgetUpTo(after.stamp);
    expect(after.changesSince(before.stamp)).toBeUndefined();
    expect(after.changesSince(after.stamp)).toEqual({ changed: [], gone: [] });
  });

  test("a load after another keeps the cards that one decoded, but for the ones changed since", () => {
    const vault = settledVault();
    const before = loadIndex(vault);
    const [alice, bob] = [before.entries.meta("people/Alice.md")!, before.entries.meta("people/Bob.md")!];
    atomicSave(vault, "people/Bob.md", card("Bobby"));
    const after = loadIndex(vault, { previous: before });
    expect(after.entries.meta("people/Alice.md")).toBe(alice);
    expect(after.entries.meta("people/Bob.md")).not.toBe(bob);
    expect(after.entries.meta("people/Bob.md")!.title).toBe("Bobby");
  });

  test("a write through lorecards is told to the index: the next load parses nothing and looks in no folder", async () => {
    const vault = settledVault();
    // An edit written in place beside it, which only a look inside the folder would find.
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    await updateCard(vault, "people", "Alice", { frontmatter: { title: "Alicia" } });
    const index = loadIndex(vault);
    expect(index.parsed).toBe(0);
    expect(index.cards.map((c) => c.title)).toEqual(["Alicia", "Bob", "Cafe"]);
  });

  test("a write through lorecards into a folder with changes not yet seen leaves that folder to be compared", async () => {
    const vault = settledVault();
    fs.writeFileSync(path.join(vault.root, "people/Carol.md"), card("Carol"));
    await updateCard(vault, "people", "Alice", { frontmatter: { title: "Alicia" } });
    expect(titles(vault)).toEqual(["Alicia", "Bob", "Carol", "Cafe"]);
  });

  test("the files a watcher named stand for their folder: after an atomic save compared by name, the next load looks in no folder", () => {
    const vault = settledVault();
    // An edit written in place beside it, which only a look inside the folder would find.
    inPlaceEdit(vault, "people/Bob.md", card("Bobby", "\npriority: 3"));
    atomicSave(vault, "people/Alice.md", card("Alicia"));
    const touched = ["people/Alice.md.tmp~", "people/Alice.md"];
    expect(loadIndex(vault, { check: "none", touched, watched: true }).parsed).toBe(1);
    const index = loadIndex(vault);
    expect(index.parsed).toBe(0);
    expect(index.cards.map((c) => c.title)).toEqual(["Alicia", "Bob", "Cafe"]);
  });

  test("a folder moved in with its cards, which a watcher names as one path, has its parent walked", () => {
    const vault = settledVault();
    const team = path.join(vault.root, "people", "team");
    fs.mkdirSync(team);
    fs.writeFileSync(path.join(team, "Dana.md"), card("Dana"));
    loadIndex(vault, { check: "none", touched: ["people/team"], watched: true });
    expect(titles(vault)).toEqual(["Alice", "Bob", "Dana", "Cafe"]);
  });
});
