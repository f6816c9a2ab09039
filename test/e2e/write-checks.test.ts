// The write checks (README "Write checks") through the compiled binary: MCP `write_card` driven by the
// official SDK client over stdio, and `lorecards import`. A refused write is a tool error naming the cap
// and its holders (or why the card could never fire) and leaves every file byte for byte as it was; a
// written card's result carries the warnings; an import is written whole and lists what it found.
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let bin = "";
beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
});

/** `n` enabled cards at `priority` in things/, named `${prefix} 1…`. */
function writeCards(vault: string, n: number, priority: number, prefix = "Top"): void {
  for (let i = 1; i <= n; i++) {
    const text = `---\nkeywords: [${prefix.toLowerCase()} card ${i}]\npriority: ${priority}\n---\nx\n`;
    fs.writeFileSync(path.join(vault, "things", `${prefix} ${i}.md`), text);
  }
}

describe("MCP write_card", () => {
  let vault = "";
  let client: Client;
  beforeEach(async () => {
    vault = makeVault();
    const transport = new StdioClientTransport({
      command: bin,
      args: ["mcp", "--vault", vault],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stderr: "pipe",
    });
    client = new Client({ name: "lorecards-test", version: "0" });
    await client.connect(transport);
  });
  afterEach(async () => {
    await client.close();
    removeDir(vault);
  });

  async function write(args: Record<string, unknown>) {
    const result = (await client.callTool({ name: "write_card", arguments: args })) as CallToolResult;
    const first = result.content[0];
    const text = first && first.type === "text" ? first.text : "";
    // biome-ignore lint/suspicious/noExplicitAny: the tests read the tool's JSON by path.
    return { isError: result.isError === true, text, data: result.structuredContent as Record<string, any> };
  }

  test("a created card's result lists its warnings, in the text and the structured content alike", async () => {
    const got = await write({
      mode: "create",
      kind: "people",
      title: "Dana",
      keywords: ["Dana or Danny", "love", "alice"],
    });
    expect(got.isError).toBe(false);
    expect(JSON.parse(got.text)).toEqual(got.data);
    expect(got.data.warnings.map((w: { code: string; term: string }) => `${w.code} ${w.term}`)).toEqual([
      "joined_terms Dana or Danny",
      "generic_keyword love",
      "another_title alice",
    ]);
    expect(fs.existsSync(path.join(vault, "people", "Dana.md"))).toBe(true);
  });

  test("a sixth card at priority 2 is refused, naming the cap and the five holding it; nothing changes", async () => {
    writeCards(vault, 5, 2);
    const before = vaultFiles(vault);
    const got = await write({
      mode: "create",
      kind: "people",
      title: "Dana",
      keywords: ["Dana"],
      priority: 2,
    });
    expect(got.isError).toBe(true);
    expect(got.text).toBe(
      "conflict: people/Dana was not written: priority 2 or above is capped at 5 cards (settings.yaml " +
        "priority_caps) and 5 cards hold it: thing/Top 1, thing/Top 2, thing/Top 3, thing/Top 4, thing/Top 5; " +
        "give this card a lower priority, lower one of theirs, or raise the cap",
    );
    expect(vaultFiles(vault)).toEqual(before);
    const lower = await write({
      mode: "create",
      kind: "people",
      title: "Dana",
      keywords: ["Dana"],
      priority: 1,
    });
    expect(lower.isError).toBe(false);
    expect(fs.readFileSync(path.join(vault, "people", "Dana.md"), "utf8")).toContain("priority: 1\n");
  });

  test("a card that could never fire is refused as invalid input; nothing changes", async () => {
    const before = vaultFiles(vault);
    const got = await write({ mode: "create", kind: "slang", title: "...", key: "dots", keywords: ["!!!"] });
    expect(got.isError).toBe(true);
    expect(got.text).toBe(
      "invalid_input: slang/dots was not written: it can never fire: it has no term with a letter or digit in it, so nothing can match it",
    );
    expect(vaultFiles(vault)).toEqual(before);
  });

  test("update_recent on a card in an over-full band goes through, with the card's warnings", async () => {
    writeCards(vault, 6, 3);
    fs.writeFileSync(
      path.join(vault, "people", "Zed.md"),
      "---\nkeywords: [Zed or Zee]\npriority: 3\n---\n## who\nA drummer.\n\n## recent\nOld.\n",
    );
    const got = await write({ mode: "update_recent", name: "Zed", text: "New." });
    expect(got.isError).toBe(false);
    expect(got.data.warnings.map((w: { code: string }) => w.code)).toEqual(["joined_terms"]);
    expect(fs.readFileSync(path.join(vault, "people", "Zed.md"), "utf8")).toContain("## recent\nNew.\n");
  });

  test("the caps come from the vault's settings.yaml", async () => {
    fs.writeFileSync(path.join(vault, "settings.yaml"), "priority_caps: false\n");
    writeCards(vault, 5, 2);
    const got = await write({
      mode: "create",
      kind: "people",
      title: "Dana",
      keywords: ["Dana"],
      priority: 9,
    });
    expect([got.isError, got.data?.status]).toEqual([false, "created"]);
  });
});

describe("lorecards import", () => {
  let vault = "";
  let dir = "";
  beforeEach(() => {
    vault = makeVault();
    dir = fs.mkdtempSync(path.join(path.dirname(vault), "lc-book-"));
  });
  afterEach(() => {
    removeDir(vault);
    removeDir(dir);
  });

  /** A character card whose book has `n` entries at priority 10, each keyed "bard i or minstrel". */
  function bardBook(n: number): string {
    const entries = Array.from({ length: n }, (_, i) => ({
      keys: [`bard ${i} or minstrel`],
      content: "Sings.",
      name: `Bard ${i}`,
      priority: 10,
      enabled: true,
      insertion_order: i,
      extensions: {},
    }));
    const file = path.join(dir, "bards.json");
    const card = { spec: "chara_card_v2", data: { name: "Bards", character_book: { entries } } };
    fs.writeFileSync(file, JSON.stringify(card));
    return file;
  }

  test("a book that overfills a cap is imported whole, and --json lists the checks", async () => {
    const run = await runBinary([
      "import",
      bardBook(6),
      "--book",
      "main",
      "--kind",
      "people",
      "--vault",
      vault,
      "--json",
    ]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.created).toBe(6);
    const codes = out.checks.map((c: { card: string | null; code: string }) => `${c.card} ${c.code}`);
    expect(codes).toHaveLength(7);
    expect(codes[0]).toBe("people/Bard 0 joined_terms");
    expect(codes[6]).toBe("null priority_cap");
    expect(out.checks[6].detail).toStartWith(
      "priority 2 or above holds 6 cards, over its cap of 5 (settings.yaml priority_caps): people/Bard 0,",
    );
    expect(fs.readdirSync(path.join(vault, "people")).filter((f) => f.startsWith("Bard"))).toHaveLength(6);
  });

  test("without --json, the summary is followed by the checks, the first 20 named", async () => {
    const run = await runBinary([
      "import",
      bardBook(25),
      "--book",
      "main",
      "--kind",
      "people",
      "--vault",
      vault,
    ]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toEndWith("25 created, 0 kept, 0 overwritten, 0 skipped");
    // After the notes (here: the character's name for settings.yaml), the checks, last.
    const at = lines.indexOf("  write checks: 26 warnings");
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toStartWith(
      '    people/Bard 0: "bard 0 or minstrel" reads as two keywords typed as one',
    );
    expect(lines.slice(at + 1, at + 21).every((l) => l.startsWith("    people/Bard"))).toBe(true);
    expect(lines.slice(at + 21)).toEqual(["    and 6 more (--json lists them)"]);
  });

  test("importing again over a band already past its cap still writes every card: an import never refuses on the checks", async () => {
    await runBinary(["import", bardBook(6), "--book", "main", "--kind", "people", "--vault", vault]);
    const again = await runBinary([
      "import",
      bardBook(6),
      "--book",
      "main",
      "--kind",
      "people",
      "--vault",
      vault,
      "--force",
      "--json",
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).overwritten).toBe(6);
  });
});
