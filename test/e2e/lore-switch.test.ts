// The writing app's lore switch and its "named only" reach, through the compiled binary (docs/GATEWAY.md
// "The lore switch"): the official OpenAI client sends `X-Lorecards-Lore` per request and the fake
// upstream shows what the model receives; the hook's `--lore`; `try` / `explain --lore`; and the door
// (`explain`, the conversations the editor reads) saying which switch was in force, and listing what
// one hop would have added under `--reach named`, marked not sent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import OpenAI from "openai";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { startUi, type UiServer } from "../support/editor-browser.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import { type CardFile, makeVault, PREMISE, removeDir } from "../support/vault.ts";

setDefaultTimeout(60_000);

const CARDS: CardFile[] = [
  PREMISE,
  { dir: "people", key: "Alice", keywords: ["alice"], body: "The harbourmaster; she works with Bob.\n" },
  { dir: "people", key: "Bob", keywords: ["bob"], body: "Keeps the lighthouse.\n" },
  {
    dir: "things",
    key: "the Secret",
    keywords: ["secret"],
    body: "The tide tables are forged.\n",
    extra: "context: manual\n",
  },
];

let bin = "";
let vault = "";
let upstream: FakeUpstream;
let gateway: GatewayProcess;
let client: OpenAI;

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault(CARDS);
  upstream = startFakeUpstream({ reply: () => "Noted." });
  gateway = await startGatewayBinary(bin, vault, upstream.url, vault);
  client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${gateway.url}/v1` });
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  removeDir(vault);
});

/** One request of a conversation; what the upstream (the model) received, as text. */
async function send(
  conversation: string,
  text: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const before = upstream.received.length;
  await client.chat.completions.create(
    { model: "m", messages: [{ role: "user", content: text }] },
    { headers: { "X-Lorecards-Conversation": conversation, ...headers } },
  );
  return upstream.received[before]!.body;
}

describe("X-Lorecards-Lore on the compiled gateway", () => {
  test("auto (the default): the always-on card, the named one and the one its text reaches", async () => {
    const body = await send("lore-auto", "How is Alice?");
    for (const title of ["the Premise", "Alice", "Bob"]) expect(body).toContain(`### ${title}`);
  });

  test("declared: the always-on card and the card asked for by name, nothing noticed", async () => {
    const body = await send("lore-declared", "How is Alice?", {
      "X-Lorecards-Lore": "declared",
      "X-Lorecards-With": "the Secret",
    });
    expect(body).toContain("### the Premise");
    expect(body).toContain("### the Secret");
    expect(body).not.toContain("### Alice");
    expect(body).not.toContain("### Bob");
  });

  test("none: the request reaches the model exactly as the client sent it", async () => {
    const sent = { model: "m", messages: [{ role: "user", content: "How is Alice?" }] };
    const body = await send("lore-none", "How is Alice?", { "X-Lorecards-Lore": "none" });
    expect(JSON.parse(body)).toEqual(sent);
  });

  test("none on a later turn drops what earlier turns added; auto after it puts it back", async () => {
    const first = await send("lore-later", "Alice?");
    expect(first).toContain("### Alice");
    const history = [
      { role: "user" as const, content: "Alice?" },
      { role: "assistant" as const, content: "Noted." },
      { role: "user" as const, content: "And the weather?" },
    ];
    const at = upstream.received.length;
    await client.chat.completions.create(
      { model: "m", messages: history },
      { headers: { "X-Lorecards-Conversation": "lore-later", "X-Lorecards-Lore": "none" } },
    );
    expect(JSON.parse(upstream.received[at]!.body).messages).toEqual(history);
    const next = [
      ...history,
      { role: "assistant" as const, content: "Noted." },
      { role: "user" as const, content: "Thanks." },
    ];
    await client.chat.completions.create(
      { model: "m", messages: next },
      { headers: { "X-Lorecards-Conversation": "lore-later" } },
    );
    expect(upstream.received[at + 1]!.body).toContain("### Alice");
  });

  test("a value that is none of the three is said on stderr, and the gateway's own setting applies", async () => {
    const body = await send("lore-typo", "Alice?", { "X-Lorecards-Lore": "off" });
    expect(body).toContain("### Alice");
    expect(gateway.stderr()).toContain('x-lorecards-lore "off" is not auto, declared, none');
  });

  test("the door says which switch was in force on each turn", async () => {
    let ui: UiServer | undefined;
    try {
      ui = await startUi(vault);
      const turns = async (id: string) =>
        (await (await fetch(`${ui!.url}/api/conversations/${encodeURIComponent(id)}`)).json()).turns;
      expect((await turns("lore-declared"))[0]).toMatchObject({ lore: "declared" });
      expect((await turns("lore-auto"))[0].lore).toBeUndefined();
      const later = await turns("lore-later");
      expect(later.map((t: { lore?: string }) => t.lore ?? "auto")).toEqual(["auto", "none", "auto"]);
      const answer = await (
        await fetch(`${ui.url}/api/explain`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-lorecards": "1" },
          body: JSON.stringify({ text: "How is Alice?", lore: "declared" }),
        })
      ).json();
      expect(answer.lore).toBe("declared");
      const alice = answer.cards.find((c: { key: string }) => c.key === "Alice");
      expect(alice).toMatchObject({ verdict: "vetoed", reason: "lore_declared" });
      expect(alice.line).toContain("not sent (lore: declared)");
    } finally {
      await ui?.stop();
    }
  });
});

describe("the switch on the other surfaces", () => {
  const hook = (prompt: string, args: string[], session: string) =>
    runBinary(["hook", "--vault", vault, ...args], {
      stdin: JSON.stringify({
        hook_event_name: "UserPromptSubmit",
        session_id: session,
        prompt,
        cwd: "/tmp",
      }),
      env: { HOME: vault },
    });

  test("the hook's --lore: declared sends the always-on card only, none sends nothing", async () => {
    const declared = await hook("How is Alice?", ["--lore", "declared"], "h-declared");
    const context: string = JSON.parse(declared.stdout).hookSpecificOutput.additionalContext;
    expect(context).toContain("### the Premise");
    expect(context).not.toContain("### Alice");
    const none = await hook("How is Alice?", ["--lore", "none"], "h-none");
    expect(none).toMatchObject({ code: 0, stdout: "" });
  });

  test("try --lore and explain --lore, and settings.yaml lore for every surface", async () => {
    const tried = JSON.parse(
      (await runBinary(["try", "How is Alice?", "--lore", "declared", "--json", "--vault", vault])).stdout,
    );
    expect(tried).toMatchObject({ lore: "declared", injected: ["the Premise"] });
    const explained = await runBinary(["explain", "How is Alice?", "--lore", "none", "--vault", vault]);
    expect(explained.stdout).toContain("Lore: none (nothing at all goes in for this request).");
    expect(explained.stdout).toContain("Nothing would be injected.");
    await Bun.write(`${vault}/settings.yaml`, "lore: declared\n");
    try {
      const byFile = JSON.parse(
        (await runBinary(["try", "How is Alice?", "--json", "--vault", vault])).stdout,
      );
      expect(byFile).toMatchObject({ lore: "declared", injected: ["the Premise"] });
      const flagWins = JSON.parse(
        (await runBinary(["try", "Alice?", "--lore", "auto", "--json", "--vault", vault])).stdout,
      );
      expect(flagWins.injected).toContain("Alice");
    } finally {
      await Bun.write(`${vault}/settings.yaml`, "");
    }
  });
});

describe("named only still shows what reach would have added", () => {
  test("explain --reach named lists the reached card, marked not sent; try sends only the named", async () => {
    const r = await runBinary(["explain", "How is Alice?", "--reach", "named", "--json", "--vault", vault]);
    const bob = JSON.parse(r.stdout).cards.find((c: { key: string }) => c.key === "Bob");
    expect(bob).toMatchObject({
      verdict: "vetoed",
      reason: "reach_named",
      via: "reached",
      why: { reached_from: "people/Alice" },
    });
    expect(bob.line).toContain("reached through “Alice”’s text");
    expect(bob.line).toContain("not sent (reach: named)");
    const words = await runBinary(["explain", "How is Alice?", "--reach", "named", "--vault", vault]);
    expect(words.stdout).toMatch(/x Bob \[people\] does not fire: .*not sent \(reach: named\)/);
    const tried = JSON.parse(
      (await runBinary(["try", "How is Alice?", "--reach", "named", "--json", "--vault", vault])).stdout,
    );
    expect(tried.injected).not.toContain("Bob");
  });

  test("a gateway with --reach named sends the named card only", async () => {
    const named = await startGatewayBinary(bin, vault, upstream.url, vault, { args: ["--reach", "named"] });
    try {
      const c = new OpenAI({ apiKey: "sk-e2e", baseURL: `${named.url}/v1` });
      const at = upstream.received.length;
      await c.chat.completions.create({ model: "m", messages: [{ role: "user", content: "How is Alice?" }] });
      const body = upstream.received[at]!.body;
      expect(body).toContain("### Alice");
      expect(body).not.toContain("### Bob");
    } finally {
      await named.stop();
    }
  });
});
