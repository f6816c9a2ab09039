// `lorecards explain` as users run it (`bun src/main.ts`, a real process on a real vault): a line per
// card, --card for the ones that did not fire, --conversation for a conversation kept in state.db,
// meaningful exit codes, and a dry run that writes nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openStore, statePath, stateUrl } from "../../src/state/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");

function lorecards(...args: string[]): { code: number; stdout: string; stderr: string } {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, LORECARDS_VAULT: "" },
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

let vault: TempVault;
beforeAll(() => {
  vault = tempVault({
    "people/Ann.md": cardText("keywords: [Ann, tea]", "Ann knows Ben.\n"),
    "people/Ben.md": cardText("keywords: [Ben]\nsecondary: { all: [cake] }", "Ben bakes.\n"),
    "people/Cy.md": cardText("context: manual", "Cy keeps the keys.\n"),
    "people/Dee.md": cardText("keywords: [Dee]", "Dee.\n"),
  });
});
afterAll(() => vault.remove());

const explain = (...args: string[]) => lorecards("explain", ...args, "--vault", vault.root);

describe("lorecards explain", () => {
  test("prints one marked line per card, and what would be injected", () => {
    const r = explain("tea with Cy");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(
      "+ Ann [people] goes in: named: “tea” in the current message; policy automatic; " +
        "the surface’s default place, volatile; in budget, 32 chars",
    );
    expect(lines.find((l) => l.startsWith("x Ben"))).toContain("secondary all: “cake” is not in its window");
    expect(lines.find((l) => l.startsWith("x Cy"))).toContain("manual: it fires only when asked for by name");
    expect(lines.at(-1)).toBe("1 card(s) would be injected, 32 characters of cards.");
  });

  test("a card whose text an earlier turn already holds (World Info of the same book) is explained, not sent twice", () => {
    const v = tempVault({
      "people/Eve.md": cardText("keywords: [Eve]", "Eve keeps the lighthouse on the north cape.\n"),
    });
    try {
      const turns = JSON.stringify([
        { role: "user", text: "[World Info] Eve keeps the lighthouse on the north cape." },
        { role: "assistant", text: "ok" },
      ]);
      const run = (...more: string[]) =>
        lorecards("explain", "and Eve?", "--turns", turns, "--vault", v.root, ...more);
      const json = run("--json");
      expect(json.code).toBe(0);
      const cards = JSON.parse(json.stdout).cards as { id: string; why: unknown }[];
      expect(cards.find((c) => c.id === "people/Eve")?.why).toMatchObject({ in_context: { how: "quoted" } });
      expect(run().stdout).toContain("its text is already in the request");
    } finally {
      v.remove();
    }
  });

  test("--card, repeated or comma-separated, explains cards that did not fire; --turns gives the window", () => {
    const turns = JSON.stringify([
      { role: "user", text: "Dee called" },
      { role: "assistant", text: "ok" },
    ]);
    const r = explain(
      "hello",
      "--turns",
      turns,
      "--scan-depth",
      "0",
      "--card",
      "Dee",
      "--card=Cy,Ann",
      "--json",
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.cards.map((c: { key: string }) => c.key)).toEqual(["Dee", "Cy", "Ann"]);
    expect(out.cards[0]).toMatchObject({
      verdict: "not_noticed",
      reason: "no_term",
      asked: true,
      why: { window: { messages: 1, nearest: { term: "dee", back: 2 } } },
    });
    expect(Object.keys(out).sort()).toEqual([
      "blocks",
      "cards",
      "conversation",
      "injected",
      "injected_chars",
      "lore",
    ]);
  });

  test("--with asks for a card by name, as try's does: a manual card then goes in, asked for", () => {
    const r = explain("hello", "--with", "Cy", "--json");
    expect(r.code).toBe(0);
    const cy = JSON.parse(r.stdout).cards.find((c: { key: string }) => c.key === "Cy");
    expect(cy).toMatchObject({ verdict: "chosen", via: "explicit" });
    const unknown = explain("hello", "--with", "Nobody");
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('--with: no card named "Nobody"');
  });

  test("a --card name that finds no card is not_found (exit 3)", () => {
    const r = explain("hi", "--card", "Nobody", "--json");
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({ error: "not_found", detail: '--card: no card named "Nobody"' });
  });

  test("--turns that is not JSON is a usage error (exit 2)", () => {
    expect(explain("hi", "--turns", "{bad").code).toBe(2);
  });

  test("a conversation not in state.db is not_found, and no state.db is made to find out", () => {
    const r = explain("hi", "--conversation", "c1");
    expect(r.code).toBe(3);
    expect(existsSync(statePath(vault.root))).toBe(false);
  });

  test("it writes nothing: no index, no hit log, no state", () => {
    explain("tea with Ann", "--card", "Dee");
    expect(existsSync(join(vault.root, ".lorecards"))).toBe(false);
  });

  test("--conversation explains its next turn: the ledger says what is in context, since which turn", async () => {
    const v = tempVault({ "people/Ann.md": cardText("keywords: [Ann]", "Ann.\n") });
    try {
      const store = await openStore(stateUrl(v.root));
      await store.commitTurn("conv-1", {
        turn: 4,
        now: 1,
        injections: [{ id: "people/Ann", version: "1:1", turn: 3 }],
      });
      await store.close();
      const r = lorecards("explain", "Ann again", "--conversation", "conv-1", "--vault", v.root);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Conversation conv-1, as its turn 5:");
      expect(r.stdout).toContain("= Ann [people] already in context:");
      expect(r.stdout).toContain("already sent at turn 3 and still in context: not sent again");
      const unknown = lorecards("explain", "Ann", "--conversation", "other", "--vault", v.root);
      expect(unknown.code).toBe(3);
    } finally {
      v.remove();
    }
  });
});
