// The batch placement an import uses (vault/_batch.ts): its files are made and written by several
// threads at once, yet it stays all or nothing. A process killed at any step leaves a vault that the
// next run settles to exactly as it was (before the plan counts) or complete (after), and a failure
// inside a live process changes nothing.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { cardAt, parseCard as parseText } from "../../src/card/index.ts";
import { LoreError } from "../../src/errors.ts";
import {
  cardPath,
  type KnownFile,
  loadIndex,
  placeAll,
  recoverImports,
  STATE_DIR,
  type Vault,
} from "../../src/vault/index.ts";
import { spyOnFsyncs } from "../support/fsync-spy.ts";
import { tempVault } from "./_helpers.ts";

const CHILD = path.join(import.meta.dir, "_batch-child.ts");
/** Enough files for several writer threads, each with a chunk of them. */
const COUNT = 300;

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

/** Every file of the vault outside `.lorecards/`, with its bytes. */
function cards(v: Vault): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(v.root, { recursive: true }) as string[]) {
    const abs = path.join(v.root, rel);
    if (!rel.startsWith(STATE_DIR) && fs.statSync(abs).isFile()) out[rel] = fs.readFileSync(abs, "base64");
  }
  return out;
}

function stagingFolders(v: Vault): string[] {
  const state = path.join(v.root, STATE_DIR);
  return fs.existsSync(state) ? fs.readdirSync(state).filter((n) => n.startsWith("import-")) : [];
}

/** The card of `t` at `at`, titled `title` whatever the text says. */
function parseCard(t: string, at: { kind: { name: string }; key: string }, title: string) {
  const card = parseText(t, { kind: at.kind.name, key: at.key, path: `people/${at.key}.md` });
  return { ...card, title };
}

const text = (i: number, what: string) => `---\ntitle: P${i}\n---\n${what} ${i}\n`;

function files(v: Vault, n: number, replaces = false) {
  return Array.from({ length: n }, (_, i) => ({
    target: cardPath(v, "people", `P${i}`),
    replaces,
    text: text(i, "NEW"),
  }));
}

describe("a batch placement killed with SIGKILL", () => {
  test.each([
    ["while its texts are being made, its first chunks with the writers", "as it was", "text:250", "new"],
    ["once every file is staged, before the plan is written", "as it was", `progress:${COUNT}`, "new"],
    ["right after its plan, one card moved", "complete", `progress:${COUNT + 1}`, "new"],
    ["after its last move, before the folders are synced", "complete", `progress:${2 * COUNT}`, "new"],
    ["while replacing cards, before its plan", "as it was", "text:250", "replace"],
    ["while replacing cards, half of them moved", "complete", `progress:${COUNT + COUNT / 2}`, "replace"],
  ])("%s leaves the vault %s once the next run settles it", async (_when, outcome, at, mode) => {
    vault = tempVault();
    if (mode === "replace") {
      for (let i = 0; i < COUNT; i++) fs.writeFileSync(cardPath(vault, "people", `P${i}`), text(i, "OLD"));
    }
    const before = cards(vault);
    const child = Bun.spawn([process.execPath, CHILD, vault.root, String(COUNT), at, mode], {
      stdout: "ignore",
      stderr: "pipe",
    });
    await child.exited;
    // It died at that step, not of something else.
    expect(await new Response(child.stderr).text()).toBe("");
    expect(child.signalCode).toBe("SIGKILL");
    expect(stagingFolders(vault)).toHaveLength(1);

    const finished = recoverImports(vault);
    expect(stagingFolders(vault)).toEqual([]);
    if (outcome === "as it was") {
      expect(finished).toBe(0);
      expect(cards(vault)).toEqual(before);
    } else {
      expect(finished).toBe(1);
      for (let i = 0; i < COUNT; i++) {
        expect(fs.readFileSync(cardPath(vault, "people", `P${i}`), "utf8")).toBe(text(i, "NEW"));
      }
      expect(Object.keys(cards(vault)).length - Object.keys(before).length).toBe(mode === "new" ? COUNT : 0);
    }
  });
});

describe("a batch placement in a live process", () => {
  test("puts every file in place with its text and reports each step once, in order", async () => {
    vault = tempVault();
    const steps: number[] = [];
    await placeAll(vault, files(vault, COUNT), (done, total) => {
      expect(total).toBe(2 * COUNT);
      steps.push(done);
    });
    for (let i = 0; i < COUNT; i++) {
      expect(fs.readFileSync(cardPath(vault, "people", `P${i}`), "utf8")).toBe(text(i, "NEW"));
    }
    expect(steps.at(-1)).toBe(2 * COUNT);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(steps).size).toBe(steps.length);
    expect(stagingFolders(vault)).toEqual([]);
  });

  test("syncs in order: every staged file whole, then its folders, then the plan; the card folders before it returns", async () => {
    vault = tempVault();
    const events: string[] = [];
    const { renameSync } = fs;
    const spies = [
      ...spyOnFsyncs((p) => events.push(`fsync ${p}`)),
      spyOn(fs, "renameSync").mockImplementation((from, to) => {
        if (String(to).endsWith("plan.json")) {
          // Every staged file was made durable before the plan (one syncfs, or its writer's fsync): whole here.
          const stage = path.dirname(String(to));
          for (let i = 0; i < COUNT; i++) {
            expect(fs.readFileSync(path.join(stage, `${i}.md`), "utf8")).toBe(text(i, "NEW"));
          }
        }
        events.push(`rename ${path.basename(String(to))}`);
        renameSync(from, to);
      }),
    ];
    try {
      await placeAll(vault, files(vault, COUNT));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const state = path.join(vault.root, STATE_DIR);
    const at = (event: string) => events.indexOf(event);
    const plan = at("rename plan.json");
    expect(plan).toBeGreaterThan(0);
    const stageSync = events.findIndex((e) => e.startsWith(`fsync ${state}/import-`) && !e.endsWith(".tmp"));
    expect(stageSync).toBeGreaterThanOrEqual(0);
    expect(stageSync).toBeLessThan(plan);
    expect(at(`fsync ${state}`)).toBeLessThan(plan);
    expect(at(`fsync ${state}`)).toBeGreaterThanOrEqual(0);
    const lastMove = events.lastIndexOf(`rename P${COUNT - 1}.md`);
    expect(lastMove).toBeGreaterThan(plan);
    expect(events.lastIndexOf(`fsync ${path.dirname(cardPath(vault, "people", "P0"))}`)).toBeGreaterThan(
      lastMove,
    );
  });

  test("makes each text once, from a function, and writes what it returned", async () => {
    vault = tempVault();
    const made: number[] = [];
    const lazy = files(vault, COUNT).map((f, i) => ({
      ...f,
      text: () => {
        made.push(i);
        return text(i, "MADE");
      },
    }));
    await placeAll(vault, lazy);
    expect(made).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    expect(fs.readFileSync(cardPath(vault, "people", "P299"), "utf8")).toBe(text(299, "MADE"));
  });

  test("hands the index the card made with each text: a load takes it while the file is the one written", async () => {
    vault = tempVault();
    const v = vault;
    const known = new Map<string, KnownFile>();
    // Each card is made with a title its file does not hold, so a load that read the file would show.
    const made = files(v, COUNT).map((f, i) => ({
      ...f,
      text: () => {
        const t = text(i, "MADE");
        return { text: t, card: parseCard(t, cardAt(v.kinds, `people/P${i}.md`)!, "From memory") };
      },
    }));
    await placeAll(v, made, undefined, undefined, [], known);
    expect(known.size).toBe(COUNT);
    // Every file compared, as a full check does: the known cards are taken all the same.
    const title = (i: number) =>
      loadIndex(v, { known, check: "all" }).cards.find((c) => c.key === `P${i}`)?.title;
    expect(title(0)).toBe("From memory");
    expect(title(COUNT - 1)).toBe("From memory");
    // Written since (in place, another size): the file is read again, whatever the process remembers.
    fs.writeFileSync(cardPath(v, "people", "P7"), "---\ntitle: Edited later\n---\nnew text\n");
    expect(title(7)).toBe("Edited later");
    expect(title(8)).toBe("From memory");
  });

  test("a text that cannot be made fails with its own error and changes nothing", async () => {
    vault = tempVault();
    const before = cards(vault);
    const refused = new LoreError("invalid_input", "card 200 would not read back");
    const bad = files(vault, COUNT).map((f, i) => ({
      ...f,
      text: () => {
        if (i === 200) throw refused;
        return f.text;
      },
    }));
    expect(await placeAll(vault, bad).catch((e: unknown) => e)).toBe(refused);
    expect(cards(vault)).toEqual(before);
    expect(stagingFolders(vault)).toEqual([]);
  });

  test("a file a writer thread cannot create fails as io_error and changes nothing", async () => {
    vault = tempVault();
    for (let i = 0; i < COUNT; i++) fs.writeFileSync(cardPath(vault, "people", `P${i}`), text(i, "OLD"));
    const before = cards(vault);
    const sabotaged = files(vault, COUNT, true).map((f, i) => ({
      ...f,
      text: () => {
        // Before the first chunk leaves: a folder where staged file 100 must be created.
        if (i === 0) fs.mkdirSync(path.join(vault.root, STATE_DIR, stagingFolders(vault)[0]!, "100.md"));
        return f.text;
      },
    }));
    const err = await placeAll(vault, sabotaged).catch((e: unknown) => e);
    expect((err as LoreError).code).toBe("io_error");
    expect((err as Error).message).toContain("nothing was changed");
    expect((err as Error).message).toContain("EEXIST");
    expect(cards(vault)).toEqual(before);
    expect(stagingFolders(vault)).toEqual([]);
  });
});
