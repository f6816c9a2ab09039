// An import killed with SIGKILL part way: the vault must end up as it was or complete, never partial.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { exportBook, importBook } from "../../src/interop/index.ts";
import { injectedKeys, openEngine } from "../../src/recall/index.ts";
import { initVault, openVault, STATE_DIR, type Vault } from "../../src/vault/index.ts";
import { tempDir } from "./_support.ts";

const BUN = path.resolve(import.meta.dir, "../../node_modules/.bin/bun");
const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const ENTRIES = 2000;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(): { vault: Vault; book: string; things: string } {
  const dir = tempDir();
  dirs.push(dir);
  const root = path.join(dir, "vault");
  initVault(root);
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    key: [`gadget ${i}`],
    comment: `gadget ${i}`,
    content: `Gadget ${i} is kept in drawer ${i % 7}.`,
  }));
  const book = path.join(dir, "book.json");
  fs.writeFileSync(book, JSON.stringify({ entries }));
  return { vault: openVault(root), book, things: path.join(root, "things") };
}

function gadgets(things: string): number {
  return fs.readdirSync(things).filter((n) => n.startsWith("gadget ")).length;
}

function stagingFolders(vault: Vault): string[] {
  return fs.readdirSync(path.join(vault.root, STATE_DIR)).filter((n) => n.startsWith("import-"));
}

/** Whether an import has staged at least one file (and so has a staging folder with content). */
function staging(vault: Vault): boolean {
  return stagingFolders(vault).some(
    (n) => fs.readdirSync(path.join(vault.root, STATE_DIR, n)).filter((f) => f.endsWith(".md")).length > 0,
  );
}

/** Whether an import has written its plan (and so counts: a kill from here on rolls forward). */
function plannedMoves(vault: Vault): boolean {
  return stagingFolders(vault).some((n) => fs.existsSync(path.join(vault.root, STATE_DIR, n, "plan.json")));
}

async function killWhen(args: string[], ready: () => boolean): Promise<void> {
  const child = Bun.spawn([BUN, MAIN, ...args], { stdout: "ignore", stderr: "ignore" });
  const deadline = Date.now() + 60_000;
  while (!ready() && child.exitCode === null && Date.now() < deadline) await Bun.sleep(1);
  child.kill("SIGKILL");
  await child.exited;
}

describe("an import killed with SIGKILL", () => {
  test.each([
    ["while staging its files", (v: Vault, _things: string) => staging(v)],
    ["while moving cards into place", (_v: Vault, things: string) => gadgets(things) > 0],
  ])("%s leaves the vault as it was or complete after the next run", async (_when, ready) => {
    const { vault, book, things } = setup();
    await killWhen(["import", book, "--book", "main", "--kind", "thing", "--vault", vault.root], () =>
      ready(vault, things),
    );
    // The next export settles the leftovers before it reads the vault.
    const out = await exportBook(vault, "st");
    const n = gadgets(things);
    expect([0, ENTRIES]).toContain(n);
    expect(out.cards - n).toBe(6); // the example cards of a new vault
    expect(stagingFolders(vault)).toEqual([]);
    // And the next import finds what it expects: every card present, or none.
    const again = await importBook(vault, fs.readFileSync(book), { filename: "book.json", kind: "thing" });
    expect(again.created + again.kept).toBe(ENTRIES);
    expect(gadgets(things)).toBe(ENTRIES);
  });
});

describe("an import --force killed with SIGKILL", () => {
  test.each([
    ["while staging its files", (v: Vault) => staging(v)],
    ["while moving cards into place", (v: Vault) => plannedMoves(v)],
  ])("%s leaves every replaced card all old or all new after the next run", async (_when, ready) => {
    const { vault, book, things } = setup();
    await importBook(vault, fs.readFileSync(book), { filename: "book.json", kind: "thing" });
    const edited = path.join(path.dirname(book), "edited.json");
    fs.writeFileSync(edited, fs.readFileSync(book, "utf8").replaceAll("is kept in drawer", "moved to shelf"));
    await killWhen(
      ["import", edited, "--book", "main", "--kind", "thing", "--force", "--vault", vault.root],
      () => ready(vault),
    );
    await exportBook(vault, "st");
    const texts = fs.readdirSync(things).map((n) => fs.readFileSync(path.join(things, n), "utf8"));
    const moved = texts.filter((t) => t.includes("moved to shelf")).length;
    expect(gadgets(things)).toBe(ENTRIES);
    expect([0, ENTRIES]).toContain(moved);
    expect(stagingFolders(vault)).toEqual([]);
  });
});

describe("after an import killed while moving cards", () => {
  test("the next lookup settles it before reading, so no half-imported book is ever matched", async () => {
    const { vault, book, things } = setup();
    await killWhen(
      ["import", book, "--book", "main", "--kind", "thing", "--vault", vault.root],
      () => gadgets(things) > 0,
    );
    const engine = await openEngine(vault.root, { segmenter: false });
    const result = await engine.recall([{ role: "user", text: "where is gadget 1999?" }]);
    expect([0, ENTRIES]).toContain(gadgets(things));
    expect(stagingFolders(vault)).toEqual([]);
    expect(injectedKeys(result).includes("gadget 1999")).toBe(gadgets(things) === ENTRIES);
  });
});
