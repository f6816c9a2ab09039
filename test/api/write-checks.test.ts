// The write checks at the HTTP API (README "Write checks"), over a real socket: the API served by
// Bun.serve on 127.0.0.1:0 and called with fetch. Create and update answer with `checks` (`warnings`
// is already the card's own: values that fell back to defaults); a refused write answers {error,
// detail} with its status and leaves every card file byte for byte as it was; an import never
// refuses, and lists what it found under `checks`.
import { afterEach, beforeEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let server: ReturnType<typeof Bun.serve>;
let base: string;

/** Five enabled cards at priority 2 or above: the default cap of that band is full. */
function fillTopBand(): void {
  for (let i = 1; i <= 5; i++) {
    const text = `---\ntitle: Top ${i}\nkeywords: [top card ${i}]\npriority: ${i === 5 ? 3 : 2}\n---\nOne of the five.\n`;
    fs.writeFileSync(path.join(root, "things", `Top ${i}.md`), text);
  }
}

beforeEach(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false });
  let handle: (req: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handle(req) });
  handle = createApi({ engine, hosts: ["127.0.0.1"], port: server.port });
  base = `http://127.0.0.1:${server.port}`;
});
afterEach(async () => {
  await server.stop(true);
  engine.close();
  removeDir(root);
});

async function send(method: string, url: string, body: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { "x-lorecards": "1", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary response JSON by path.
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** The card form as the editor reads it before a save. */
async function read(rel: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${base}/api/cards/${rel}`)).json()) as Record<string, unknown>;
}

test("a created card comes back with the write checks' warnings, and is written", async () => {
  const res = await send("POST", "/api/cards", {
    kind: "people",
    title: "Dana",
    keywords: ["Dana or Danny", "alice"],
  });
  expect(res.status).toBe(201);
  expect(res.body.key).toBe("Dana");
  expect(res.body.checks.map((w: { code: string; term: string }) => `${w.code} ${w.term}`)).toEqual([
    "joined_terms Dana or Danny",
    "another_title alice",
  ]);
  expect(fs.existsSync(path.join(root, "people", "Dana.md"))).toBe(true);
});

test("a card with nothing to fix comes back with an empty checks list", async () => {
  const res = await send("POST", "/api/cards", { kind: "people", title: "Dana", keywords: ["Dana Scully"] });
  expect([res.status, res.body.checks]).toEqual([201, []]);
});

test("a card over the priority cap is refused with 409, naming the cap and its holders; nothing is written", async () => {
  fillTopBand();
  const before = vaultFiles(root);
  const res = await send("POST", "/api/cards", {
    kind: "people",
    title: "Dana",
    keywords: ["Dana"],
    priority: 2,
  });
  expect(res.status).toBe(409);
  expect(res.body.error).toBe("conflict");
  expect(res.body.detail).toBe(
    "people/Dana was not written: priority 2 or above is capped at 5 cards (settings.yaml priority_caps) " +
      "and 5 cards hold it: thing/Top 5, thing/Top 1, thing/Top 2, thing/Top 3, thing/Top 4; give this " +
      "card a lower priority, lower one of theirs, or raise the cap",
  );
  expect(vaultFiles(root)).toEqual(before);
});

test("an update raising a card into a full band is refused; one that keeps it there goes through", async () => {
  fillTopBand();
  const current = await read("people/Alice");
  const before = vaultFiles(root);
  const raised = await send("PUT", "/api/cards/people/Alice", { ...current, priority: 2 });
  expect([raised.status, raised.body.error]).toEqual([409, "conflict"]);
  expect(raised.body.current).toBeUndefined();
  expect(vaultFiles(root)).toEqual(before);

  const { body: _sameText, ...top } = await read("thing/Top%201");
  const kept = await send("PUT", "/api/cards/thing/Top%201", {
    ...top,
    priority: 4,
    preamble: "Still here.",
  });
  expect(kept.status).toBe(200);
  expect(kept.body.priority).toBe(4);
  expect(kept.body.checks).toEqual([]);
});

test("a card that could never fire is refused with 400 invalid_input; nothing is written", async () => {
  const before = vaultFiles(root);
  const res = await send("POST", "/api/cards", {
    kind: "slang",
    key: "dots",
    title: "...",
    keywords: ["!!!"],
  });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    error: "invalid_input",
    detail:
      "slang/dots was not written: it can never fire: it has no term with a letter or digit in it, so nothing can match it",
  });
  expect(vaultFiles(root)).toEqual(before);
});

test("settings.yaml priority_caps is what the API enforces", async () => {
  fs.writeFileSync(path.join(root, "settings.yaml"), "priority_caps: {7: 1}\n");
  fs.writeFileSync(path.join(root, "things", "Seven.md"), "---\nkeywords: [seven]\npriority: 7\n---\nx\n");
  const two = await send("POST", "/api/cards", {
    kind: "people",
    title: "Dana",
    keywords: ["Dana"],
    priority: 2,
  });
  expect(two.status).toBe(201);
  const eight = await send("POST", "/api/cards", {
    kind: "people",
    title: "Eve",
    keywords: ["Eve"],
    priority: 8,
  });
  expect(eight.status).toBe(409);
  expect(eight.body.detail).toContain(
    "priority 7 or above is capped at 1 card (settings.yaml priority_caps) and 1 card holds it: thing/Seven",
  );
});

test("an import over the cap is written, and says so under checks", async () => {
  fillTopBand();
  const book = {
    spec: "chara_card_v2",
    data: {
      name: "Bards",
      character_book: {
        entries: [0, 1].map((i) => ({
          keys: [`bard ${i} or minstrel`],
          content: "Sings.",
          name: `Bard ${i}`,
          priority: 10,
          enabled: true,
          insertion_order: i,
          extensions: {},
        })),
      },
    },
  };
  const res = await send("POST", "/api/import", { book, kind: "people" });
  expect(res.status).toBe(200);
  expect(res.body.created).toBe(2);
  const codes = res.body.checks.map((c: { card: string | null; code: string }) => `${c.card} ${c.code}`);
  expect(codes).toEqual(["people/Bard 0 joined_terms", "people/Bard 1 joined_terms", "null priority_cap"]);
  expect(res.body.checks[2].detail).toStartWith("priority 2 or above holds 7 cards, over its cap of 5");
  expect(fs.existsSync(path.join(root, "people", "Bard 0.md"))).toBe(true);
});
