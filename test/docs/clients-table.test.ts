// The client table of docs/GATEWAY.md ("Clients", linked from the README) says which release of every
// client was tried and how. It is held to what the tests really run: every client pinned in
// test/package.json has a row at the pinned release, tested live; a row tested live names a release
// that is pinned (or SillyTavern's, the judge's own); every row of src/clients.ts, the wrappers and
// session ids seen in traffic, has its client and release in the table; and the releases the README
// names as driven live are pinned ones.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CLIENT_BOOKKEEPING, CLIENT_SESSIONS, CLIENT_WRAPPERS } from "../../src/clients.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

/** The package each table row's client is, by the row's first column. */
const PACKAGES: Record<string, string> = {
  "@anthropic-ai/claude-code": "Claude Code",
  "claude-code-newest": "Claude Code",
  "@openai/codex": "Codex CLI",
  "opencode-ai": "opencode",
  "@qwen-code/qwen-code": "Qwen Code",
  "@continuedev/cli": "Continue CLI (`cn`)",
  "@google/gemini-cli": "Gemini CLI",
  "@google/genai": "`@google/genai`",
  ollama: "`ollama` (npm)",
  openai: "`openai` SDK",
  "@anthropic-ai/sdk": "`@anthropic-ai/sdk`",
};
const OFFICIAL_SDKS = ["openai", "@anthropic-ai/sdk"];
/** SillyTavern is no npm package of ours: the judge (../shared/judges/sillytavern/) is this release. */
const SILLYTAVERN = "1.12.6";

interface Row {
  client: string;
  release: string;
  tested: string;
}

function tableRows(): Row[] {
  const text = read("docs/GATEWAY.md");
  const start = text.indexOf("Every client tried, the release tried, and what works:");
  expect(start).toBeGreaterThan(-1);
  const lines = text.slice(start).split("\n").slice(1);
  const table = lines.slice(lines.findIndex((l) => l.startsWith("|")));
  const rows = table
    .slice(
      0,
      table.findIndex((l) => !l.startsWith("|")),
    )
    .slice(2);
  return rows.map((l) => {
    const cells = l.split(" | ").map((c) => c.replace(/^\| ?| ?\|$/g, "").trim());
    // A release may have a note after it: "2.1.332 (the newest …)".
    return { client: cells[0]!, release: cells[1]!.split(" ")[0]!, tested: cells.at(-1)! };
  });
}

/** test/package.json's pins: [package, release] (an `npm:name@x` alias read as its release). */
function pins(): [string, string][] {
  const pkg = JSON.parse(read("test/package.json")) as { devDependencies: Record<string, string> };
  return Object.entries(pkg.devDependencies).map(([name, spec]) => [name, spec.replace(/^npm:.+@/, "")]);
}

describe("the client table of docs/GATEWAY.md", () => {
  test("every client test/package.json pins has a row at the pinned release, tested live", () => {
    const rows = tableRows();
    for (const [name, release] of pins()) {
      const client = PACKAGES[name];
      expect([name, client !== undefined]).toEqual([name, true]);
      const row = rows.find((r) => r.client === client && r.release === release);
      expect([name, release, row?.tested.startsWith("live") ?? false]).toEqual([name, release, true]);
    }
  });

  test("every row tested live is at a release the tests pin, or the SillyTavern the judge is", () => {
    const pinned = pins().map(([name, release]) => `${PACKAGES[name]} ${release}`);
    for (const r of tableRows().filter((row) => row.tested.startsWith("live"))) {
      const known = r.client.startsWith("SillyTavern")
        ? r.release === SILLYTAVERN
        : pinned.includes(`${r.client} ${r.release}`);
      expect([r.client, r.release, known]).toEqual([r.client, r.release, true]);
    }
  });

  test("every client and release src/clients.ts has a row for is in the table", () => {
    const rows = tableRows();
    for (const { client, seenIn } of [...CLIENT_WRAPPERS, ...CLIENT_BOOKKEEPING, ...CLIENT_SESSIONS]) {
      const row = rows.find((r) => r.client.startsWith(client) && r.release === seenIn);
      expect([client, seenIn, row !== undefined]).toEqual([client, seenIn, true]);
    }
  });

  test("the releases the README says the tests drive live are the pinned ones", () => {
    const readme = read("README.md").replace(/\n/g, " ");
    const said = /Driven live in the tests, pinned: (.*?) What works/.exec(readme)?.[1] ?? "";
    const releases = [...said.matchAll(/\d+\.\d+\.\d+/g)].map((m) => m[0]);
    const pinned = [...pins().map(([, release]) => release), SILLYTAVERN];
    expect(releases.length).toBeGreaterThan(5);
    expect(releases.filter((r) => !pinned.includes(r))).toEqual([]);
    // The README names the official SDKs without their releases; every other pin by its release.
    for (const [name, release] of pins().filter(([name]) => !OFFICIAL_SDKS.includes(name)))
      expect([name, releases.includes(release)]).toEqual([name, true]);
  });
});
