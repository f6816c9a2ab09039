// The original tool's cases about refs and reach (the Python lorecards' test_engine.py: Alice, whose
// alias is "Al"; Bob, "on call for releases"; the Friday deploy, which refs Bob), each asked of the five
// surfaces a person meets, through the compiled binary: `try --json`, `explain --json`, the Claude Code
// hook, the gateway (a chat request through it to a fake upstream) and the editor's `POST /api/try`.
// All five must send exactly the cards the original sent, and so agree with each other.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type TempVault, tempVault } from "../support/card-vault.ts";
import { startUi, type UiServer } from "../support/editor-browser.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";

/** The original tool's example vault. */
const FILES = {
  "people/Alice.md":
    "---\ntitle: Alice\nkeywords: [Alice, payments team]\naliases: [Al]\n---\n## who\nAlice works on the payments team.\n",
  "people/Bob.md": "---\ntitle: Bob\nkeywords: [Bob]\n---\n## who\nBob is on call for releases.\n",
  "events/the Friday deploy.md":
    "---\ntitle: the Friday deploy\nkeywords: [Friday deploy]\nrefs: [Bob]\n---\n## what\nThe weekly release goes out.\n",
};

/** [the person's message, the budget in characters (undefined: the default), the cards sent]. */
const CASES: [string, number | undefined, string[]][] = [
  ["Bob?", undefined, ["Bob"]],
  ["how did the Friday deploy go", undefined, ["the Friday deploy"]],
  ["Friday deploy with Bob", undefined, ["Bob", "the Friday deploy"]],
  ["ask Al about it", undefined, ["Alice"]],
  ["the corner cafe? no, the payments team", undefined, ["Alice"]],
  ["a wallaby", undefined, ["Alice"]],
  ["Alice and Bob", 1, ["Alice"]],
  ["Alice and Bob and the Friday deploy", 1, ["Alice"]],
  ["Alice and Bob and the Friday deploy", 9999, ["Alice", "Bob", "the Friday deploy"]],
];

/** Card titles in what a surface sent: each card's block opens `### Title [kind]`. */
function headings(text: string): string[] {
  return [...text.matchAll(/^### (.+) \[[^\]]+\]$/gm)].map((m) => m[1]!).sort();
}

let vault: TempVault;
let upstream: FakeUpstream;
let ui: UiServer;
const gateways = new Map<number | undefined, GatewayProcess>();

beforeAll(async () => {
  const bin = await ensureBinary();
  vault = tempVault(FILES);
  upstream = startFakeUpstream();
  ui = await startUi(vault.root);
  for (const budget of new Set(CASES.map((c) => c[1]))) {
    const args = budget === undefined ? [] : ["--budget", String(budget)];
    gateways.set(budget, await startGatewayBinary(bin, vault.root, upstream.url, vault.root, { args }));
  }
}, 120_000);

afterAll(async () => {
  for (const g of gateways.values()) await g.stop();
  await ui?.stop();
  await upstream?.close();
  vault?.remove();
});

const budgetArgs = (budget: number | undefined) => (budget === undefined ? [] : ["--budget", String(budget)]);

/** What each surface sends for one message, as sorted card titles. */
const SURFACES: Record<
  string,
  (message: string, budget: number | undefined, n: number) => Promise<string[]>
> = {
  async try(message, budget) {
    const r = await runBinary(["try", message, "--vault", vault.root, "--json", ...budgetArgs(budget)]);
    return (JSON.parse(r.stdout) as { injected: string[] }).injected.sort();
  },
  async explain(message, budget) {
    const r = await runBinary(["explain", message, "--vault", vault.root, "--json", ...budgetArgs(budget)]);
    const cards = (JSON.parse(r.stdout) as { cards: { key: string; verdict: string }[] }).cards;
    return cards
      .filter((c) => c.verdict === "chosen")
      .map((c) => c.key)
      .sort();
  },
  async hook(message, budget, n) {
    const stdin = JSON.stringify({
      session_id: `five-${n}`,
      hook_event_name: "UserPromptSubmit",
      prompt: message,
    });
    const r = await runBinary(["hook", "--vault", vault.root, "--no-log", ...budgetArgs(budget)], {
      stdin,
      env: { HOME: vault.root },
    });
    return r.stdout ? headings(JSON.parse(r.stdout).hookSpecificOutput.additionalContext) : [];
  },
  async gateway(message, budget, n) {
    const before = upstream.received.length;
    const res = await fetch(`${gateways.get(budget)!.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test" },
      // A conversation of its own per case: the gateway remembers what each conversation was sent.
      body: JSON.stringify({
        model: "m",
        messages: [
          { role: "system", content: `Case ${n}.` },
          { role: "user", content: message },
        ],
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    return headings(
      upstream.received
        .slice(before)
        .map((r) => r.body)
        .join("\n")
        .replaceAll("\\n", "\n"),
    );
  },
  async "/api/try"(message, budget) {
    const res = await fetch(`${ui.url}/api/try`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lorecards": "1" },
      body: JSON.stringify({ text: message, ...(budget !== undefined && { budget }) }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { injected: string[] }).injected.sort();
  },
};

describe("the original tool's cases, on all five surfaces", () => {
  for (const [n, [message, budget, cards]] of CASES.entries()) {
    const label = `${JSON.stringify(message)}${budget === undefined ? "" : ` with a budget of ${budget}`}`;
    test(`${label} sends ${cards.join(", ")}, on every surface`, async () => {
      const sent: Record<string, string[]> = {};
      for (const [surface, ask] of Object.entries(SURFACES)) sent[surface] = await ask(message, budget, n);
      const want = Object.fromEntries(Object.keys(SURFACES).map((s) => [s, [...cards].sort()]));
      expect(sent).toEqual(want);
    }, 60_000);
  }
});
