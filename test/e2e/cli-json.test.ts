// One JSON convention for every `--json` answer of the command line, as the API has it (src/wire.ts,
// test/api/wire-convention.test.ts): keys in snake_case and times as ISO 8601 strings. Every command
// of `lorecards --help` is run here through the compiled binary with --json, on one vault the table
// builds up in order (a card written and rewritten, archived and restored, a backup, an export), or
// is named below with why its JSON is another's. Only what a person named keeps their keys: a card's
// frontmatter (its `extra` too) and maps keyed by card.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { COMMAND_NAMES } from "../../src/cli/index.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { streamText } from "../support/wait.ts";

let dir = "";
let vault = "";
let upstream: FakeUpstream;
beforeAll(async () => {
  await ensureBinary();
  upstream = startFakeUpstream();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-json-"));
  vault = path.join(dir, "cards");
  expect((await runBinary(["init", vault])).code).toBe(0);
  // A field of the user's own, in their own spelling: it is theirs, not the convention's.
  fs.writeFileSync(
    path.join(vault, "people", "Bob.md"),
    "---\ntitle: Bob\nkeywords: [Bob]\nmyField: 1\n---\n## who\nA neighbour.\n",
  );
});
afterAll(async () => {
  await upstream.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Paths (`a.b[0].c`) of keys that break the convention, and of times that are not ISO 8601 strings. */
function offending(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => offending(v, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const here = at === "" ? key : `${at}.${key}`;
    if (key === "frontmatter" || key === "extra") return [];
    // A map keyed by card (`people/Alice`) has names for keys, not fields.
    const badKey = !key.includes("/") && /[A-Z]/.test(key) ? [`${here} (key)`] : [];
    // A time is a string: under a time's name, and anywhere a count of milli- or nanoseconds since 1970.
    const timeName = /(^|_)(at|since|seen|opened|mtime)$/.test(key);
    const epoch = typeof v === "number" && v > 1e12;
    const iso = typeof v === "string" && /^\d{4}-\d\d-\d\d(T[\d:.]+Z)?$/.test(v);
    const badTime =
      epoch || (timeName && v !== null && !iso) ? [`${here} = ${JSON.stringify(v)} (time)`] : [];
    return [...badKey, ...badTime, ...offending(v, here)];
  });
}

const backup = () => {
  const folder = path.join(vault, ".lorecards", "backups");
  return path.join(folder, fs.readdirSync(folder).find((f) => f.endsWith(".tar.gz"))!);
};

/** Each command with --json, in the order that builds the vault up; a function's args are read when it runs. */
const RUNS: [string, () => string[]][] = [
  ["init", () => ["init", path.join(dir, "another")]],
  ["new", () => ["new", "people", "Zed", "--keywords", "Zed", "--section", "who=A friend."]],
  ["update", () => ["update", "Zed", "who", "An old friend."]],
  ["list", () => ["list"]],
  ["read", () => ["read", "Bob"]],
  ["try", () => ["try", "Bob and Zed"]],
  ["explain", () => ["explain", "Bob and Zed"]],
  ["check", () => ["check"]],
  ["refresh", () => ["refresh"]],
  ["stats", () => ["stats", "--cards"]],
  ["history", () => ["history", "Zed"]],
  ["history", () => ["history", "Zed", "--version", "1"]],
  ["revert", () => ["revert", "Zed", "--version", "1"]],
  ["archive", () => ["archive", "Zed"]],
  ["restore", () => ["restore", "Zed"]],
  ["style", () => ["style"]],
  ["backup", () => ["backup"]],
  ["restore-backup", () => ["restore-backup", backup(), "--to", path.join(dir, "restored")]],
  ["export", () => ["export", path.join(dir, "book.json")]],
  ["import", () => ["import", path.join(dir, "book.json"), "--book", "copy"]],
  ["repair", () => ["repair", "--dry-run"]],
  ["tenant", () => ["tenant", "add", "ann", "--tenants", path.join(dir, "tenants.yaml")]],
  ["tenant", () => ["tenant", "list", "--tenants", path.join(dir, "tenants.yaml")]],
];

/** The servers, whose --json answer is the one line they print once listening. */
const SERVERS: [string, () => string[]][] = [
  ["gateway", () => ["gateway", "--upstream", upstream.url, "--port", "0", "--no-backups"]],
  [
    "ui",
    () => ["ui", "--port", "0", "--gateway-upstream", upstream.url, "--gateway-port", "0", "--no-backups"],
  ],
  ["mcp", () => ["mcp", "--http", "--port", "0"]],
];

/** Commands whose output is a protocol of another's, in its spelling. */
const NOT_OURS: Record<string, string> = {
  hook: "its stdout is Claude Code's hook answer (hookSpecificOutput, additionalContext): Claude Code's names",
};

describe("every command's --json", () => {
  test("is run below, or its output is another program's protocol", () => {
    const covered = new Set([...RUNS, ...SERVERS].map(([name]) => name));
    expect(COMMAND_NAMES.filter((c) => !covered.has(c) && !(c in NOT_OURS))).toEqual([]);
  });

  test.each(RUNS)("%s has snake_case keys and ISO 8601 times", async (name, args) => {
    // A tenant's vault is named in the tenants file, so `tenant` takes no --vault.
    const where = name === "tenant" ? [] : ["--vault", vault];
    const r = await runBinary([...args(), ...where, "--json"], { env: { HOME: dir } });
    expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(offending(JSON.parse(r.stdout))).toEqual([]);
  });

  test.each(SERVERS)("%s's line once listening has snake_case keys", async (_name, args) => {
    const bin = await ensureBinary();
    const proc = Bun.spawn([bin, ...args(), "--vault", vault, "--json"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    try {
      const out = streamText(proc.stdout);
      await out.waitFor("\n");
      const ready = JSON.parse(out.text().split("\n")[0]!) as Record<string, unknown>;
      expect(ready).toHaveProperty("url");
      expect(offending(ready)).toEqual([]);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("a card's own fields keep the user's spelling", async () => {
    const r = await runBinary(["read", "Bob", "--vault", vault, "--json"]);
    const card = JSON.parse(r.stdout) as { frontmatter: Record<string, unknown> };
    expect(card.frontmatter.myField).toBe(1);
  });
});
