// The matcher after edits: the saved snapshot plus a layer of just the changed cards must find exactly
// what a matcher rebuilt from every card finds, whatever the sequence of creates, edits, disables,
// deletes and renames (a property test over random sequences), and a killed indexer must leave an
// index that still works.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { Matcher } from "../../src/match/index.ts";
import { compile, type Loaded, OVERLAY_MAX, outsideSnapshot } from "../../src/recall/_compiled.ts";
import { loadIndex, openVault, type Vault } from "../../src/vault/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let temp: TempVault | undefined;
afterEach(() => temp?.remove());

const WORDS = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "haze", "河流", "山"];
const KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"];
const DIRS = ["people", "places"];

type Op =
  | { kind: "write"; dir: string; key: string; words: string[]; enabled: boolean }
  | { kind: "delete"; dir: string; key: string }
  | { kind: "rename"; dir: string; key: string; to: string };

const words = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("write" as const),
    dir: fc.constantFrom(...DIRS),
    key: fc.constantFrom(...KEYS),
    words,
    enabled: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("delete" as const),
    dir: fc.constantFrom(...DIRS),
    key: fc.constantFrom(...KEYS),
  }),
  fc.record({
    kind: fc.constant("rename" as const),
    dir: fc.constantFrom(...DIRS),
    key: fc.constantFrom(...KEYS),
    to: fc.constantFrom(...KEYS),
  }),
);

const file = (v: Vault, dir: string, key: string) => path.join(v.root, dir, `${key}.md`);

/** Apply one edit the way an atomic saver does (temp file renamed over the card). */
function apply(v: Vault, o: Op): void {
  const at = file(v, o.dir, o.key);
  if (o.kind === "write") {
    const text = cardText(
      `title: ${o.dir} ${o.key}\nkeywords: [${o.words.join(", ")}]\nenabled: ${o.enabled}`,
      "x\n",
    );
    fs.writeFileSync(`${at}.tmp~`, text);
    fs.renameSync(`${at}.tmp~`, at);
  } else if (fs.existsSync(at)) {
    if (o.kind === "delete") fs.rmSync(at);
    else fs.renameSync(at, file(v, o.dir, o.to));
  }
}

const MESSAGES = [
  ...WORDS.map((w) => `we talked about ${w} today`),
  WORDS.join(" "),
  "nothing at all",
  "河流和山",
];

/** What a matcher notices in each message, by card path: score and hits. */
async function noticed(matcher: Matcher, cardAt: (i: number) => { path: string } | undefined) {
  const out: string[][] = [];
  for (const message of MESSAGES) {
    const { cards } = await matcher.notice([message], { scanDepth: 1 });
    out.push(cards.map((c) => `${cardAt(c.card)!.path} ${c.score} ${[...c.hits].sort().join("|")}`).sort());
  }
  return out;
}

/** Runs `check` on random vaults: a random start written and its snapshot saved, then random edits. */
async function onRandomVaults(
  numRuns: number,
  maxEdits: number,
  check: (vault: Vault, edits: Op[]) => Promise<void>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(op, { maxLength: 12 }),
      fc.array(op, { minLength: 1, maxLength: maxEdits }),
      async (start, edits) => {
        temp = tempVault();
        try {
          const vault = openVault(temp.root);
          for (const o of start) apply(vault, o);
          compile(vault, loadIndex(vault), { persist: true });
          await check(vault, edits);
        } finally {
          temp.remove();
          temp = undefined;
        }
      },
    ),
    { numRuns },
  );
}

/** The compiled matcher notices what a matcher rebuilt from every enabled card of the index notices. */
async function expectAsRebuilt(loaded: Loaded): Promise<void> {
  const enabled = loaded.index.cards.filter((c) => c.enabled);
  expect(await noticed(loaded.matcher, (i) => loaded.cards.at(i))).toEqual(
    await noticed(new Matcher(enabled), (i) => enabled[i]),
  );
}

describe("the snapshot plus a layer of changed cards", () => {
  test("finds exactly what a matcher rebuilt from every card finds, after any sequence of edits", async () => {
    await onRandomVaults(60, 12, async (vault, edits) => {
      for (const o of edits) apply(vault, o);
      const loaded = compile(vault, loadIndex(vault));
      await expectAsRebuilt(loaded);
      expect(loaded.matcher.alwaysCards()).toEqual([]);
    });
  });

  test("a server's matcher, extended one save at a time, finds what a rebuild finds after every save", async () => {
    await onRandomVaults(40, 16, async (vault, edits) => {
      let loaded = compile(vault, loadIndex(vault));
      for (const o of edits) {
        apply(vault, o);
        const index = loadIndex(vault, { previous: loaded.index });
        loaded = compile(vault, index, { previous: loaded, overlayMax: Number.POSITIVE_INFINITY });
        await expectAsRebuilt(loaded);
      }
      // Layers stay few: a binary counter of the changed cards' layers, never one per save.
      expect(loaded.matcher.layers.length).toBeLessThanOrEqual(2 + Math.log2(edits.length + 1));
      // What a server counts outside the snapshot (to ask its refresher for a new one) is never more
      // than the refresh counts, which would otherwise not rebuild and be asked again and again.
      const since = loaded.index.changesSince(loaded.overlay!.base.stamp)!;
      const outside = outsideSnapshot(loaded);
      expect(outside).toBeLessThanOrEqual(since.changed.length + since.gone.length);
    });
  });

  test("a save after a layer compiles the saved card alone and keeps the cards decoded before", () => {
    temp = tempVault(
      Object.fromEntries(
        ["a", "b", "c", "d"].map((k) => [`people/${k}.md`, cardText("keywords: [amber]", "x\n")]),
      ),
    );
    const vault = openVault(temp.root);
    compile(vault, loadIndex(vault), { persist: true });
    for (const key of ["a", "b", "c"])
      apply(vault, { kind: "write", dir: "people", key, words: ["dune"], enabled: true });
    const first = compile(vault, loadIndex(vault));
    expect(first.overlay!.parts).toEqual([["people/a.md", "people/b.md", "people/c.md"]]);
    const d = first.cards.at(3)!;
    expect(d.path).toBe("people/d.md");
    apply(vault, { kind: "write", dir: "people", key: "a", words: ["fjord"], enabled: true });
    const next = compile(vault, loadIndex(vault, { previous: first.index }), { previous: first });
    // The layer of a, b and c keeps b and c (a set aside), and the new layer holds a alone.
    expect(next.overlay!.parts).toEqual([["people/a.md", "people/b.md", "people/c.md"], ["people/a.md"]]);
    expect(next.matcher.layers).toHaveLength(3);
    expect([...next.matcher.layers[1]!.hidden!]).toEqual([0]);
    expect(next.cards.at(3)).toBe(d);
    expect(next.cards.at(7)!.keywords).toEqual(["fjord"]);
    expect(outsideSnapshot(next)).toBe(3);
  });

  test("an edit after a saved snapshot is compiled as a layer, not as a rebuild", () => {
    temp = tempVault({
      "people/a.md": cardText("keywords: [amber]", "x\n"),
      "people/b.md": cardText("keywords: [birch]", "x\n"),
    });
    const vault = openVault(temp.root);
    compile(vault, loadIndex(vault), { persist: true });
    apply(vault, { kind: "write", dir: "people", key: "a", words: ["cobalt"], enabled: true });
    const loaded = compile(vault, loadIndex(vault));
    expect(loaded.matcher.layers).toHaveLength(2);
    expect([...loaded.matcher.layers[0]!.hidden!]).toEqual([0]);
  });

  test("more changed cards than a layer holds rebuild the snapshot, and the rebuild is saved", () => {
    temp = tempVault({ "people/a.md": cardText("keywords: [amber]", "x\n") });
    const vault = openVault(temp.root);
    compile(vault, loadIndex(vault), { persist: true });
    for (let i = 0; i <= OVERLAY_MAX; i++)
      fs.writeFileSync(path.join(temp.root, "places", `p${i}.md`), cardText(`keywords: [w${i}]`, "x\n"));
    const rebuilt = compile(vault, loadIndex(vault), { persist: true });
    expect(rebuilt.matcher.layers).toHaveLength(1);
    const next = compile(vault, loadIndex(vault));
    expect(next.matcher.layers).toHaveLength(1);
    expect(next.matcher.layers[0]!.hidden?.size ?? 0).toBe(0);
  });
});
