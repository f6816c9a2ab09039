// What the editor's context door shows of the writing app's switches, driven by headless Chromium over
// the compiled binary (docs/EDITOR.md "Everything else", docs/CARDS.md "The context door"): a
// conversation the compiled gateway steered with `X-Lorecards-Lore: declared` says so on its turn, one
// given a card as it was (`X-Lorecards-Earlier`) lists it by its version; the try box says which lore
// switch settings.yaml puts in force, marks what reach would have added "reach: named", and names a
// card's tier hint. Skipped, with a message, when /usr/bin/chromium is absent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { ensureBinary, runBinary } from "../support/binary.ts";
import {
  type EditorInChromium,
  editorInChromium,
  haveChromium,
  openPanel,
  pollUntil,
  seeText,
} from "../support/editor-browser.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { startGatewayBinary } from "../support/gateway-binary.ts";
import { type CardFile, makeVault, PREMISE, removeDir } from "../support/vault.ts";

setDefaultTimeout(60_000);

const hasChromium = haveChromium("test/e2e/door-switches.test.ts");

const CARDS: CardFile[] = [
  PREMISE,
  {
    dir: "people",
    key: "Alice",
    keywords: ["alice"],
    body: "The harbourmaster; she plays cards with Bob.\n",
    extra: "tier: stable\n",
  },
  { dir: "people", key: "Bob", keywords: ["bob"], body: "Keeps the lighthouse.\n" },
];

let vault = "";
let zedFirst = 0;
let editor: EditorInChromium;

/** One OpenAI chat request through the compiled gateway, as conversation `id`. */
async function send(openai: OpenAI, id: string, text: string, headers: Record<string, string>) {
  await openai.chat.completions.create(
    { model: "m", messages: [{ role: "user", content: text }] },
    { headers: { "X-Lorecards-Conversation": id, ...headers } },
  );
}

beforeAll(async () => {
  if (!hasChromium) return;
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault(CARDS);
  // Zed's history, as a person writes it with the command line: two versions.
  const made = await runBinary([
    "new",
    "people",
    "Zed",
    "--keywords",
    "zed",
    "--section",
    "recent=Flies airships.",
    "--vault",
    vault,
  ]);
  expect(made.code).toBe(0);
  expect((await runBinary(["update", "Zed", "recent", "Farms now.", "--vault", vault])).code).toBe(0);
  const versions = JSON.parse((await runBinary(["history", "Zed", "--json", "--vault", vault])).stdout)
    .versions as { version: number }[];
  zedFirst = versions.at(-1)!.version;
  const upstream: FakeUpstream = startFakeUpstream({ reply: () => "Noted." });
  const gateway = await startGatewayBinary(bin, vault, upstream.url, vault);
  try {
    const openai = new OpenAI({ apiKey: "sk-e2e", baseURL: `${gateway.url}/v1` });
    await send(openai, "declared-talk", "How is Alice?", { "X-Lorecards-Lore": "declared" });
    await send(openai, "earlier-talk", "What does Zed do?", { "X-Lorecards-Earlier": `Zed@${zedFirst}` });
    expect(upstream.received[1]!.body).toContain("as of");
  } finally {
    await gateway.stop();
    await upstream.close();
  }
  editor = await editorInChromium(vault, { context: { viewport: { width: 1280, height: 900 } } });
});
afterAll(async () => {
  await editor?.close();
  if (vault) removeDir(vault);
});

describe.skipIf(!hasChromium)("the door shows the switches in Chromium", () => {
  test("a turn the gateway sent under declared says which switch was in force", async () => {
    const { page } = editor;
    const panel = await openPanel(page, "conversations");
    await panel.locator('button[title="conversation declared-talk"]').click();
    await seeText(
      panel.locator('.turn[data-turn="1"] .turn-lore'),
      "Lore switch declared: only the always-on cards and the cards asked for by name, nothing noticed.",
    );
    await seeText(panel.locator(".sent-text"), "### the Premise");
    expect(await panel.locator(".sent-text").allTextContents()).not.toContainEqual(
      expect.stringContaining("### Alice"),
    );
  });

  test("a card placed as it was is listed by its version, its block headed as of its time", async () => {
    const { page } = editor;
    const panel = page.locator("#conversations .panel-body");
    await panel.getByRole("button", { name: "All conversations" }).click();
    await panel.locator('button[title="conversation earlier-talk"]').click();
    await seeText(panel.locator(".sent-block.stable .card-id"), `people/Zed as of version ${zedFirst}`);
    await seeText(panel.locator(".sent-block.stable .sent-text"), "### Zed [people, as of ");
    expect(await panel.locator(".turn-lore").count()).toBe(0);
  });

  test("the try box marks what reach would have added, and names a card's tier hint", async () => {
    const { page } = editor;
    fs.writeFileSync(path.join(vault, "settings.yaml"), "reach: named\n");
    const why = page.locator("#try-why");
    const bob = why.locator('.why-line[data-key="Bob"]');
    await pollUntil(
      async () => {
        await page.getByLabel("Try a sentence").fill("How is Alice?");
        await page.keyboard.press("Enter");
        return (await bob.textContent({ timeout: 2_000 })) ?? "";
      },
      (v) => v.includes("reach: named"),
      "Bob marked reach: named",
    );
    expect(await bob.locator(".tag").textContent()).toBe("not sent");
    expect(await bob.textContent()).toContain("named in Alice's text");
    expect(await bob.getAttribute("title")).toContain("not sent (reach: named)");
    await seeText(why.locator('.why-line[data-key="Alice"]'), "its tier hint asks “kept in place”");
    // Always on once: how it came in, not again as its policy.
    expect(await why.locator('.why-line[data-key="the Premise"]').textContent()).toContain(
      "the Premise always on; kept in place;",
    );
    expect(await page.locator("#try-result .try-lore").count()).toBe(0);
  });

  test("the try box says the lore switch settings.yaml puts in force", async () => {
    const { page } = editor;
    fs.writeFileSync(path.join(vault, "settings.yaml"), "lore: declared\n");
    const lore = await pollUntil(
      async () => {
        await page.getByLabel("Try a sentence").fill("How is Alice?");
        await page.keyboard.press("Enter");
        return (await page.locator("#try-result .try-lore").textContent({ timeout: 2_000 })) ?? "";
      },
      (v) => v !== "",
      "the try box to say the lore switch",
    );
    expect(lore).toBe(
      "Lore switch declared: only the always-on cards and the cards asked for by name, nothing noticed.",
    );
    await seeText(
      page.locator('#try-why .why-line[data-key="Alice"]'),
      "lore: declared, so only always-on cards and cards asked for go in",
    );
    expect(editor.violations).toEqual([]);
  });
});
