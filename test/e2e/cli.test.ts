// The CLI as users meet it: the compiled binary, run as a subprocess, on real vaults.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BINARY, ensureBinary, runBinary } from "../support/binary.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let home: string;
let vault: TempVault;

beforeAll(async () => {
  await ensureBinary();
  home = mkdtempSync(join(tmpdir(), "lc-home-"));
  vault = tempVault({
    "people/Alice.md": cardText(
      "keywords: [Alice, payments team]\nrefs: [the corner cafe]",
      "## who\nAlice runs payments.\n\n## correspondence\nSecret draft about Zanzibar.\n",
    ),
    "places/the corner cafe.md": cardText("keywords: [corner cafe]", "## where\nDown the street.\n"),
    "events/the Friday deploy.md": cardText(
      "keywords: [Friday deploy]",
      `## what\n${"Tag and watch. ".repeat(60)}\n`,
    ),
  });
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  vault.remove();
});

const env = () => ({ HOME: home });

describe("version, help and flags", () => {
  test("--version prints the package version", async () => {
    const r = await runBinary(["--version"]);
    expect(r.stdout.trim()).toBe(pkg.version);
    expect(r.code).toBe(0);
  });

  test("help is plain text when piped", async () => {
    const r = await runBinary(["try", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--scan-depth");
    expect(r.stdout).not.toContain("\u001b[");
  });

  test.each([
    [["list", "--vualt", "x"], "unknown flag --vualt"],
    [["--nope", "list"], "unknown flag --nope"],
    [["frobnicate"], 'unknown command "frobnicate"'],
    [["try", "hi", "--budget", "lots"], "--budget must be a whole number"],
    [["try", "hi", "--turns", "{bad"], "--turns is not valid JSON"],
  ])("%p is a usage error (exit 2)", async (args, message) => {
    const r = await runBinary([...args, "--vault", vault.root], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test("--vault works on either side of the subcommand, then $LORECARDS_VAULT", async () => {
    const before = await runBinary(["--vault", vault.root, "list", "--json"], { env: env() });
    const after = await runBinary(["list", "--json", "--vault", vault.root], { env: env() });
    const fromEnv = await runBinary(["list", "--json"], { env: { ...env(), LORECARDS_VAULT: vault.root } });
    expect(JSON.parse(before.stdout).cards).toHaveLength(3);
    expect(after.stdout).toBe(before.stdout);
    expect(fromEnv.stdout).toBe(before.stdout);
  });

  test("a missing vault named explicitly is an error, not silently created", async () => {
    const missing = join(home, "nowhere");
    const r = await runBinary(["list", "--vault", missing], { env: env() });
    expect(r.code).toBe(3);
    expect(existsSync(missing)).toBe(false);
  });
});

describe("init and the default vault", () => {
  test("init creates the kind directories and one example card per kind, and never overwrites", async () => {
    const dir = join(home, "cards");
    const first = await runBinary(["init", dir, "--json"], { env: env() });
    expect(first.code).toBe(0);
    const created: string[] = JSON.parse(first.stdout).created;
    for (const d of ["people/", "events/", "places/", "things/", "slang/"]) expect(created).toContain(d);
    expect(created.filter((p) => p.endsWith(".md"))).toHaveLength(6);
    const second = await runBinary(["init", dir, "--json"], { env: env() });
    expect(JSON.parse(second.stdout).created).toEqual([]);
    const check = await runBinary(["check", "--vault", dir], { env: env() });
    expect(check.code).toBe(0);
  });

  test("the default vault ~/.lorecards is created with the example cards on first use", async () => {
    const r = await runBinary(["try", "how did the Friday deploy go?", "--json"], { env: env() });
    expect(r.code).toBe(0);
    expect(existsSync(join(home, ".lorecards", "people"))).toBe(true);
    expect(JSON.parse(r.stdout).injected).toContain("the Friday deploy");
  });
});

describe("list and read", () => {
  test("list --kind filters, an unknown kind is bad input (exit 5)", async () => {
    const r = await runBinary(["list", "--kind", "place", "--json", "--vault", vault.root]);
    expect(JSON.parse(r.stdout).cards.map((c: { key: string }) => c.key)).toEqual(["the corner cafe"]);
    const bad = await runBinary(["list", "--kind", "planet", "--vault", vault.root]);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain('unknown kind "planet"');
  });

  test("read prints the card file; --json marks private sections", async () => {
    const text = await runBinary(["read", "Alice", "--vault", vault.root]);
    expect(text.stdout).toBe(readFileSync(join(vault.root, "people/Alice.md"), "utf8"));
    const json = JSON.parse((await runBinary(["read", "Alice", "--json", "--vault", vault.root])).stdout);
    expect(json.sections).toContainEqual({
      heading: "correspondence",
      text: expect.any(String),
      private: true,
    });
  });

  test("list --kind takes a kind's directory name too", async () => {
    const r = await runBinary(["list", "--kind", "places", "--json", "--vault", vault.root]);
    expect(JSON.parse(r.stdout).cards.map((c: { key: string }) => c.key)).toEqual(["the corner cafe"]);
  });

  test.each(["Alice.md", "people/Alice.md", "people/Alice"])("read finds a card named %p", async (name) => {
    const r = await runBinary(["read", name, "--json", "--vault", vault.root]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).key).toBe("Alice");
  });

  test("reading a name that could escape the vault is bad input (exit 5)", async () => {
    const r = await runBinary(["read", "../etc/passwd", "--vault", vault.root]);
    expect(r.code).toBe(5);
  });

  test("reading a card that does not exist exits 3", async () => {
    const r = await runBinary(["read", "Nobody", "--vault", vault.root]);
    expect(r.code).toBe(3);
  });
});

describe("try", () => {
  test("try --json prints the documented shape", async () => {
    const r = await runBinary([
      "try",
      "Alice from the payments team and Zoltan",
      "--json",
      "--vault",
      vault.root,
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual([
      "broken",
      "candidates",
      "context",
      "declared",
      "fired",
      "injected",
      "injected_chars",
      "left_out",
      "lore",
      "truncated",
    ]);
    expect(out.fired[0]).toEqual({
      key: "Alice",
      kind: "people",
      title: "Alice",
      score: 4,
      hits: ["alice", "payments team"],
      chars: expect.any(Number),
      in_budget: true,
      verdict: "chosen",
      reason: null,
      via: "named",
      policy: "automatic",
      placement: { position: null, depth: null, role: null },
    });
    expect(out.left_out).toEqual([]);
    expect(out.context).toContain("see also: the corner cafe — Down the street.");
    expect(out.context).not.toContain("Zanzibar");
    expect(out.candidates.names).toEqual(["Zoltan"]);
  });

  test("--turns adds history inside the window, --scan-depth 0 narrows it to the current message", async () => {
    const turns = JSON.stringify([
      { role: "user", text: "Alice called" },
      { role: "assistant", text: "what did she say?" },
    ]);
    const wide = JSON.parse(
      (await runBinary(["try", "nothing new", "--turns", turns, "--json", "--vault", vault.root])).stdout,
    );
    expect(wide.injected).toEqual(["Alice"]);
    const narrow = JSON.parse(
      (
        await runBinary([
          "try",
          "nothing new",
          "--turns",
          turns,
          "--scan-depth",
          "0",
          "--json",
          "--vault",
          vault.root,
        ])
      ).stdout,
    );
    expect(narrow.fired).toEqual([]);
  });

  test("--budget truncates after the top card", async () => {
    const r = JSON.parse(
      (
        await runBinary([
          "try",
          "Alice and the Friday deploy",
          "--budget",
          "10",
          "--json",
          "--vault",
          vault.root,
        ])
      ).stdout,
    );
    expect(r.injected).toHaveLength(1);
    expect(r.truncated).toBe(1);
    expect(r.left_out).toEqual([
      { key: "Alice", kind: "people", title: "Alice", reason: "budget", chars: expect.any(Number) },
    ]);
  });

  test("the text output says why a card is out", async () => {
    const r = await runBinary([
      "try",
      "Alice and the Friday deploy",
      "--budget",
      "10",
      "--vault",
      vault.root,
    ]);
    expect(r.stdout).toMatch(/Alice \[people\].*left out: over the character budget/);
  });

  test("without --json the result reads as text, and --show-context prints the block", async () => {
    const r = await runBinary(["try", "Alice", "--show-context", "--vault", vault.root]);
    expect(r.stdout).toContain("Alice [people]");
    expect(r.stdout).toContain("A memory surfaces:");
  });
});

describe("try: lorebook options", () => {
  let book: TempVault;
  beforeAll(() => {
    book = tempVault({
      "people/Lyra.md": cardText(
        "keywords: [Lyra]\nsticky: 3\nposition: at_depth\ndepth: 4\nrole: system",
        "{{char}} trusts Lyra; {{user}} does not.\n",
      ),
      "people/Coin.md": cardText("keywords: [coin]\nprobability: 50", "Heads or tails.\n"),
      "places/Harbor.md": cardText("keywords: [harbor]\npriority: -1", `${"Boats and gulls. ".repeat(20)}\n`),
      "things/Ledger.md": cardText("keywords: [ledger]\ncontext: manual", "The secret ledger.\n"),
    });
  });
  afterAll(() => book.remove());

  test("a manual card stays out when named and comes in with --with; an unknown name exits 3 (not found)", async () => {
    const named = await tryJson("where is the ledger?");
    expect(named.injected).toEqual([]);
    const asked = await tryJson("where is the ledger?", "--with", "Ledger");
    expect(asked.injected).toEqual(["Ledger"]);
    expect(asked.fired[0]).toMatchObject({ via: "explicit", policy: "manual" });
    const r = await runBinary(["try", "hi", "--with", "Nobody", "--vault", book.root]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no card named "Nobody"');
  });
  const tryJson = async (...args: string[]) => {
    const r = await runBinary(["try", ...args, "--json", "--vault", book.root]);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  test("each fired card carries its placement; --char and --user fill the macros", async () => {
    const out = await tryJson("Lyra?", "--char", "Seraphina", "--user", "Ann");
    expect(out.fired[0].placement).toEqual({ position: "at_depth", depth: 4, role: "system" });
    expect(out.context).toContain("Seraphina trusts Lyra; Ann does not.");
  });

  test("the vault's settings.yaml gives the names when no flag does, and a flag wins over it", async () => {
    book.write("settings.yaml", "char: Nyx\nuser: Bo\n");
    try {
      expect((await tryJson("Lyra?")).context).toContain("Nyx trusts Lyra; Bo does not.");
      expect((await tryJson("Lyra?", "--user", "Ann")).context).toContain("Nyx trusts Lyra; Ann does not.");
    } finally {
      book.write("settings.yaml", "");
    }
  });

  test("--budget-tokens leaves out the cards after the top one as budget_tokens", async () => {
    const out = await tryJson("Lyra at the harbor", "--budget-tokens", "5");
    expect(out.injected).toEqual(["Lyra"]);
    expect(out.left_out.map((l: { key: string; reason: string }) => [l.key, l.reason])).toEqual([
      ["Harbor", "budget_tokens"],
    ]);
  });

  test("--turns replays the conversation: a sticky card named two messages ago is still in", async () => {
    const turns = JSON.stringify([
      { role: "user", text: "where is Lyra?" },
      { role: "assistant", text: "by the hives" },
    ]);
    const out = await tryJson("and then?", "--turns", turns, "--scan-depth", "0");
    expect(out.fired.map((f: { key: string; via: string }) => [f.key, f.via])).toEqual([["Lyra", "sticky"]]);
  });

  test("--seed makes the chance draws reproducible: the same seed, the same answer", async () => {
    const answers = new Set<string>();
    for (const seed of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
      const once = await tryJson("a coin", "--seed", seed);
      const again = await tryJson("a coin", "--seed", seed);
      expect(again.injected).toEqual(once.injected);
      answers.add(JSON.stringify(once.injected));
    }
    // A 50% card over eight seeds: both outcomes show up, so the seed is really used.
    expect(answers.size).toBe(2);
  });

  test.each([
    [["--reach", "far"], "--reach"],
    [["--budget-tokens", "lots"], "--budget-tokens must be a whole number"],
  ])("%p is a usage error (exit 2)", async (flags, message) => {
    const r = await runBinary(["try", "hi", ...flags, "--vault", book.root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe("check", () => {
  test("a broken card is reported and makes check exit 1, the rest are still read", async () => {
    const v = tempVault({
      "people/Ok.md": cardText("keywords: [Okay person]", "fine\n"),
      "people/Broken.md": "---\nkeywords: [unclosed\n---\n",
      "people/Generic.md": cardText("keywords: [the, Generic]", "x\n"),
    });
    try {
      const r = await runBinary(["check", "--json", "--vault", v.root]);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      const codes = out.findings.map((f: { code: string; card: string }) => `${f.code} ${f.card}`);
      expect(codes).toContain("unparseable people/Broken");
      expect(codes).toContain("generic_keyword people/Generic");
      expect(out.cards).toBe(2);
      const tried = JSON.parse((await runBinary(["try", "Okay person", "--json", "--vault", v.root])).stdout);
      expect(tried.injected).toEqual(["Ok"]);
      // The path is given once, beside the error, not repeated inside it.
      expect(tried.broken).toEqual([{ path: "people/Broken.md", error: expect.stringContaining("YAML") }]);
      expect(tried.broken[0].error).not.toContain("Broken.md");
    } finally {
      v.remove();
    }
  });
});

describe("the binary alone", () => {
  test("segments Chinese with the jieba it carries, so a one-character term fires on a whole word", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lc-bin-"));
    const v = tempVault({ "things/猫.md": cardText("keywords: [猫]", "## what\n家里的猫。\n") });
    try {
      copyFileSync(BINARY, join(dir, "lorecards"));
      const run = async (sentence: string) => {
        const proc = Bun.spawn([join(dir, "lorecards"), "try", sentence, "--json", "--vault", v.root], {
          cwd: dir,
          env: { HOME: home, PATH: "/usr/bin:/bin" },
          stdout: "pipe",
        });
        expect(await proc.exited).toBe(0);
        return JSON.parse(await new Response(proc.stdout).text()).injected;
      };
      expect(await run("我的猫很可爱")).toEqual(["猫"]);
      expect(await run("我们去熊猫馆")).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      v.remove();
    }
  });

  test("runs from an empty directory with no node_modules", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lc-bin-"));
    try {
      copyFileSync(BINARY, join(dir, "lorecards"));
      const proc = Bun.spawn([join(dir, "lorecards"), "try", "Alice", "--json", "--vault", vault.root], {
        cwd: dir,
        env: { HOME: home, PATH: "/usr/bin:/bin" },
        stdout: "pipe",
      });
      expect(await proc.exited).toBe(0);
      expect(JSON.parse(await new Response(proc.stdout).text()).injected).toEqual(["Alice"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
