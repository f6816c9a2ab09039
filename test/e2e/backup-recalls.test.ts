// Recall events in backups, through the compiled binary (docs/OPERATIONS.md "Backups"): an agent's
// index recalls and the cards it opened from them (the hook in index mode, read_card over the real MCP
// client) stay out of `backup` unless `--with-recalls`; the rest of state (the conversations' ledger)
// is kept either way; the daily backup never keeps them; restore says which kind it restores.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let bin = "";
let vault = "";
let scratch = "";
let query = "";

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lc-backup-recalls-"));
  const hooked = await runBinary(["hook", "--inject", "index", "--vault", vault], {
    stdin: JSON.stringify({
      session_id: "br",
      hook_event_name: "UserPromptSubmit",
      prompt: "alice and the friday deploy",
    }),
  });
  query = /, query: (q[0-9a-f]{12})\)\. /.exec(hooked.stdout)![1]!;
  const client = new Client({ name: "backup-recalls", version: "0" });
  await client.connect(
    new StdioClientTransport({ command: bin, args: ["mcp", "--vault", vault], env: { HOME: vault } }),
  );
  try {
    await client.callTool({ name: "read_card", arguments: { name: "Alice", session: "hook:br", query } });
  } finally {
    await client.close();
  }
}, 60_000);

afterAll(() => {
  removeDir(vault);
  removeDir(scratch);
});

async function cli(args: string[]) {
  const r = await runBinary([...args, "--vault", vault]);
  return { ...r, json: args.includes("--json") ? JSON.parse(r.stdout) : undefined };
}

/** What a restored vault's store remembers: the recall and its opened cards, and the session's turn. */
async function remembered(root: string) {
  const store = await vaultStore(root);
  try {
    const recall = await store.findRecall("hook:br", query);
    const conversation = await store.loadConversation("hook:br");
    return { recall: recall ?? undefined, turn: conversation.turn };
  } finally {
    await store.close();
  }
}

describe("recall events in backups (compiled binary)", () => {
  test("the vault holds an index recall and an adoption", async () => {
    const { recall, turn } = await remembered(vault);
    expect(Object.keys(recall!.opened)).toEqual(["people/Alice"]);
    expect(turn).toBe(1);
  });

  test("backup leaves them out, and says so; restore says it was a backup without them", async () => {
    const made = await cli(["backup", "--to", scratch, "--json"]);
    expect(made.code).toBe(0);
    expect(made.json.recalls).toBe(false);
    const into = path.join(scratch, "plain");
    const restored = await runBinary(["restore-backup", made.json.file, "--to", into]);
    expect(restored.stdout).toContain("it was a manual backup without the recall events");
    const { recall, turn } = await remembered(into);
    expect(recall).toBeUndefined();
    // The rest of state is there: the session's ledger goes on where it was.
    expect(turn).toBe(1);
    const health = JSON.parse((await runBinary(["stats", "--cards", "--json", "--vault", into])).stdout);
    expect(health.recalls).toBe(0);
    const words = await cli(["backup", "--to", scratch]);
    expect(words.stdout).toContain("without the recall events (--with-recalls keeps them)");
  });

  test("backup --with-recalls keeps them, and restore says so", async () => {
    const made = await cli(["backup", "--with-recalls", "--to", scratch, "--json"]);
    expect(made.json.recalls).toBe(true);
    const into = path.join(scratch, "with");
    const restored = await runBinary(["restore-backup", made.json.file, "--to", into, "--json"]);
    expect(JSON.parse(restored.stdout).backup).toMatchObject({ kind: "manual", recalls: true });
    const { recall } = await remembered(into);
    expect(Object.keys(recall!.opened)).toEqual(["people/Alice"]);
  });

  test("the daily backup of a running server never keeps them", async () => {
    const dir = path.join(vault, ".lorecards", "backups");
    const before = new Set(fs.existsSync(dir) ? fs.readdirSync(dir) : []);
    const proc = Bun.spawn([bin, "ui", "--vault", vault, "--port", "0"], {
      env: { PATH: process.env.PATH ?? "", HOME: vault },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      let daily: string | undefined;
      for (let i = 0; i < 200 && daily === undefined; i++) {
        await Bun.sleep(50);
        daily = (fs.existsSync(dir) ? fs.readdirSync(dir) : []).find(
          (n) => n.startsWith("daily-") && !before.has(n),
        );
      }
      expect(daily).toBeDefined();
      const into = path.join(scratch, "daily");
      const restored = await runBinary(["restore-backup", path.join(dir, daily!), "--to", into]);
      expect(restored.stdout).toContain("it was a daily backup without the recall events");
      expect((await remembered(into)).recall).toBeUndefined();
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
