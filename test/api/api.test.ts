// The HTTP API in-process: every endpoint of docs/HTTP-API.md, every guard, every error path. The
// handler is called with `new Request(…)`; the vault is a real temporary folder of card files.
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { API_HOST, apiRequest } from "../support/api-request.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const BASE = `http://${API_HOST}`;
let root: string;
let engine: Engine;
let handle: (req: Request) => Promise<Response>;
const engines: Engine[] = [];

async function setup(
  opts: { token?: string; noLog?: boolean; limits?: { json?: number; import?: number } } = {},
) {
  engine = await openEngine(root, { segmenter: false });
  engines.push(engine);
  handle = createApi({
    engine,
    hosts: ["localhost", "127.0.0.1", "::1"],
    port: 8766,
    now: () => new Date("2026-09-13T10:00:00Z"),
    ...opts,
  });
}

beforeEach(async () => {
  root = makeVault();
  fs.writeFileSync(
    path.join(root, "people", "Bob.md"),
    "---\ntitle: Bob\nkeywords: [Bob]\nemails: [bob@example.com]\n---\n## who\nBob from the choir.\n\n## correspondence\nDraft about the zeppelin trip.\n",
  );
  await setup();
});
afterEach(() => {
  for (const e of engines.splice(0)) e.close();
  removeDir(root);
});
afterAll(() => {});

function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  return handle(apiRequest(method, url, body, headers));
}

async function json(res: Response) {
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary response JSON by path.
  return (await res.json()) as Record<string, any>;
}

describe("reading", () => {
  test("GET /api/kinds gives the section table, directories and private sections", async () => {
    const res = await call("GET", "/api/kinds");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.kinds.find((k: { name: string }) => k.name === "people")).toEqual({
      name: "people",
      dir: "people",
      sections: ["who", "stance", "recent", "impression"],
      recent: "recent",
    });
    expect(body.private_sections).toEqual(["correspondence"]);
  });

  test("GET /api/cards lists every card with its list fields and its mtime as ISO 8601 to the nanosecond", async () => {
    const { cards } = await json(await call("GET", "/api/cards"));
    expect(cards.length).toBe(6);
    const alice = cards.find((c: { key: string }) => c.key === "Alice");
    expect(Object.keys(alice).sort()).toEqual(
      [
        ...["aliases", "enabled", "inject", "key", "keywords", "kind", "mtime", "preview", "title"],
        ...["chars", "order", "policy", "priority", "warnings"],
      ].sort(),
    );
    expect(alice).toMatchObject({ chars: 41, policy: "automatic", order: null, priority: 0, warnings: 0 });
    expect(alice.mtime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(alice.preview).toBe("The user's sister; lives in Lyon.");
  });

  test("GET /api/cards is gzipped for a client that takes gzip, and the same list either way", async () => {
    const plain = await (await call("GET", "/api/cards")).text();
    const res = await handle(apiRequest("GET", "/api/cards", undefined, { "accept-encoding": "gzip, br" }));
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await res.arrayBuffer())))).toBe(plain);
  });

  test("GET /api/cards names the card files that could not be parsed, with the reason", async () => {
    fs.writeFileSync(path.join(root, "people", "Broken.md"), "---\ntitle: [unclosed\n---\nbody\n");
    const body = await json(await call("GET", "/api/cards"));
    expect(body.cards.map((c: { key: string }) => c.key)).not.toContain("Broken");
    expect(body.broken).toEqual([
      { kind: "people", key: "Broken", path: "people/Broken.md", error: expect.stringContaining("YAML") },
    ]);
    expect((await json(await call("GET", "/api/cards?kind=place"))).broken).toEqual([]);
  });

  test("GET /api/cards?kind= filters by kind, and an unknown kind is a 400", async () => {
    const { cards } = await json(await call("GET", "/api/cards?kind=people"));
    expect(cards.map((c: { key: string }) => c.key).sort()).toEqual(["Alice", "Bob", "小林"]);
    const res = await call("GET", "/api/cards?kind=dragons");
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("unknown_kind");
  });

  test("GET /api/cards/{kind}/{key} gives every frontmatter key, fields, extra and mtime", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    expect(card.emails).toEqual(["bob@example.com"]);
    expect(card.extra).toEqual({ emails: ["bob@example.com"] });
    expect(card.fields).toEqual({
      who: "Bob from the choir.",
      stance: "",
      recent: "",
      impression: "",
      correspondence: "Draft about the zeppelin trip.",
    });
    const ns = fs.statSync(path.join(root, "people", "Bob.md"), { bigint: true }).mtimeNs;
    const ms = Number(ns / 1_000_000n);
    expect(card.mtime).toBe(
      `${new Date(ms - (ms % 1000)).toISOString().slice(0, 19)}.${(ns % 1_000_000_000n).toString().padStart(9, "0")}Z`,
    );
  });

  test("a percent-encoded key works", async () => {
    const res = await call("GET", `/api/cards/people/${encodeURIComponent("小林")}`);
    expect(res.status).toBe(200);
    expect((await json(res)).title).toBe("小林");
  });

  test.each([
    ["/api/cards/people/Nobody", 404, "not_found"],
    ["/api/cards/dragons/Alice", 400, "unknown_kind"],
    ["/api/cards/people/..%2F..%2Fetc%2Fpasswd", 400, "invalid_key"],
    ["/api/cards/people/.hidden", 400, "invalid_key"],
    ["/api/cards/people/%E0%A4%A", 400, "invalid_key"],
  ])("GET %s is %d %s", async (url, status, code) => {
    const res = await call("GET", url);
    expect(res.status).toBe(status);
    expect(await json(res)).toEqual({ error: code, detail: expect.any(String) });
  });
});

describe("writing", () => {
  test("POST /api/cards creates the file with the sections in table order; 409 when the name is taken", async () => {
    const draft = {
      kind: "place",
      title: "the harbour",
      keywords: "harbour, docks",
      fields: { recent: "Fog.", where: "East end." },
    };
    const res = await call("POST", "/api/cards", draft);
    expect(res.status).toBe(201);
    const text = fs.readFileSync(path.join(root, "places", "the harbour.md"), "utf8");
    expect(text).toBe(
      "---\ntitle: the harbour\nkind: place\nkeywords: [harbour, docks]\n---\n## where\nEast end.\n\n## recent\nFog.\n",
    );
    const again = await call("POST", "/api/cards", draft);
    expect(again.status).toBe(409);
    expect((await json(again)).error).toBe("conflict");
  });

  test("a free-form card takes its body verbatim", async () => {
    const res = await call("POST", "/api/cards", { kind: "entry", key: "notes", body: "Just text.\n" });
    expect(res.status).toBe(201);
    expect(fs.readFileSync(path.join(root, "notes.md"), "utf8")).toBe("---\ntitle: notes\n---\nJust text.\n");
  });

  test.each([
    [{ title: "x" }, 400, "invalid_input"],
    [{ kind: "people" }, 400, "invalid_input"],
    [{ kind: "dragons", title: "x" }, 400, "unknown_kind"],
    [{ kind: "people", key: "../escape" }, 400, "invalid_key"],
    [{ kind: "people", key: "con" }, 400, "invalid_key"],
    [{ kind: "people", title: "x", keywords: 5 }, 400, "invalid_input"],
    [{ kind: "people", title: "x", priority: "high" }, 400, "invalid_input"],
    [{ kind: "people", title: "x", fields: { who: 3 } }, 400, "invalid_input"],
    [{ kind: "people", title: "x", extra: { title: "sneaky" } }, 400, "invalid_input"],
  ])("POST %j is %d %s and writes nothing", async (body, status, code) => {
    const before = fs.readdirSync(path.join(root, "people")).sort();
    const res = await call("POST", "/api/cards", body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toBe(code);
    expect(fs.readdirSync(path.join(root, "people")).sort()).toEqual(before);
    expect(fs.existsSync(path.join(root, "escape.md"))).toBe(false);
  });

  test.each([
    ["not json", 400, "invalid_input"],
    ["[1,2]", 400, "invalid_input"],
  ])("a body of %s is %d %s", async (body, status, code) => {
    const res = await call("POST", "/api/cards", body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toBe(code);
  });

  test("a body over the limit is 413 too_large, by header or by bytes received", async () => {
    await setup({ limits: { json: 100 } });
    const big = { kind: "people", title: "x", fields: { who: "y".repeat(500) } };
    const res = await call("POST", "/api/cards", big);
    expect(res.status).toBe(413);
    expect((await json(res)).error).toBe("too_large");
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        c.close();
      },
    });
    const chunked = await handle(
      new Request(`${BASE}/api/cards`, {
        method: "POST",
        headers: { host: API_HOST, "x-lorecards": "1" },
        body: stream,
      }),
    );
    expect(chunked.status).toBe(413);
  });

  test("PUT with the mtime read updates the card and keeps unknown frontmatter keys", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    const res = await call("PUT", "/api/cards/people/Bob", {
      title: "Bob",
      keywords: ["Bob", "choir"],
      fields: { ...card.fields, recent: "Sang a solo." },
      mtime: card.mtime,
    });
    expect(res.status).toBe(200);
    const saved = await json(res);
    expect(saved.keywords).toEqual(["Bob", "choir"]);
    expect(saved.mtime).not.toBe(card.mtime);
    const text = fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8");
    expect(text).toContain("emails: [bob@example.com]");
    expect(text).toContain("## recent\nSang a solo.");
    expect(text).toContain("## correspondence\nDraft about the zeppelin trip.");
  });

  test("PUT with a stale mtime is 409 carrying the current version, and changes nothing", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    const file = path.join(root, "people", "Bob.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("choir", "band"));
    const onDisk = fs.readFileSync(file, "utf8");
    const res = await call("PUT", "/api/cards/people/Bob", {
      title: "Bob",
      fields: { who: "mine" },
      mtime: card.mtime,
    });
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.error).toBe("conflict");
    expect(body.detail).toEqual(expect.any(String));
    expect(body.current.fields.who).toBe("Bob from the band.");
    expect(body.current.mtime).not.toBe(card.mtime);
    expect(fs.readFileSync(file, "utf8")).toBe(onDisk);
  });

  test("PUT with `extra` replaces the unknown keys: one left out is removed", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    await call("PUT", "/api/cards/people/Bob", {
      title: "Bob",
      keywords: ["Bob"],
      extra: { pronouns: "he" },
      mtime: card.mtime,
    });
    const text = fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8");
    expect(text).not.toContain("emails");
    expect(text).toContain("pronouns: he");
  });

  test("a card read and written back unchanged keeps its lorebook fields and NOT ALL words", async () => {
    const file = path.join(root, "people", "Ayla.md");
    fs.writeFileSync(
      file,
      "---\ntitle: Ayla\nkeywords: [Ayla]\nsecondary:\n  not_all: [storm, night]\ncontext: always\nprobability: 40\ndecorators: ['@@depth 2']\n---\n## who\nA pilot.\n",
    );
    const card = await json(await call("GET", "/api/cards/people/Ayla"));
    expect(card.secondary.not_all).toEqual(["storm", "night"]);
    const res = await call("PUT", "/api/cards/people/Ayla", card);
    expect(res.status).toBe(200);
    const saved = await json(await call("GET", "/api/cards/people/Ayla"));
    expect(saved.secondary.not_all).toEqual(["storm", "night"]);
    expect(saved.rules).toEqual(card.rules);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("context: always");
    expect(text).toContain("probability: 40");
    expect(text).toContain("@@depth 2");
    expect(text).not.toContain("rules:");
    expect(text).not.toContain("macros:");
  });

  test("what a save answered, sent back as it came, writes neither its checks nor the macros view into the card", async () => {
    const created = await json(
      await call("POST", "/api/cards", {
        kind: "people",
        title: "Wren",
        keywords: ["wren"],
        fields: { who: "A courier." },
      }),
    );
    expect(created.checks).toEqual([]);
    const { body: _text, ...sent } = created;
    const res = await call("PUT", "/api/cards/people/Wren", {
      ...sent,
      fields: { ...created.fields, recent: "Back from Lyon." },
    });
    expect(res.status).toBe(200);
    const text = fs.readFileSync(path.join(root, "people", "Wren.md"), "utf8");
    expect(text).toContain("Back from Lyon.");
    expect(text).not.toContain("checks:");
    expect(text).not.toContain("macros:");
    expect((await json(await call("GET", "/api/cards/people/Wren"))).extra).toEqual({});
  });

  test("a PUT of what GET gave, with the fields edited and the old body still in it, is refused: nothing is lost quietly", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    const before = fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8");
    const res = await call("PUT", "/api/cards/people/Bob", {
      ...card,
      fields: { ...card.fields, recent: "Moved to Lyon." },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).detail).toContain("body and fields say different things");
    expect(fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8")).toBe(before);
  });

  test("a card written without a kind: line, read and sent back unchanged, is the same file", async () => {
    // Each first save used to add `kind: people` and record a version for it.
    const file = path.join(root, "people", "Bob.md");
    const before = fs.readFileSync(file, "utf8");
    const { body: _text, ...card } = await json(await call("GET", "/api/cards/people/Bob"));
    expect((await call("PUT", "/api/cards/people/Bob", card)).status).toBe(200);
    expect(fs.readFileSync(file, "utf8")).toBe(before);
  });

  test("a new card whose text came as MCP's sections is refused, saying where the text goes, and nothing is made", async () => {
    const res = await call("POST", "/api/cards", { kind: "people", title: "Iris", sections: { who: "x" } });
    expect(res.status).toBe(400);
    expect((await json(res)).detail).toBe(
      'a card\'s text goes in fields (an object of section → text: {"who": "…"}) or whole in body; sections is MCP\'s list',
    );
    expect(fs.existsSync(path.join(root, "people", "Iris.md"))).toBe(false);
  });

  test("a note written as Obsidian writes one comes back from a round trip as it was, and a changed list keeps its style", async () => {
    // A new user's vault gained `title:` lines, `tags: ["#character"]` and one-line lists from saves.
    const file = path.join(root, "people", "Mira Vance.md");
    const note =
      '---\naliases:\n  - Mira\n  - The Cartographer\ntags: "#character"\ncssclasses: wide\n---\n## who\nA mapmaker.\n';
    fs.writeFileSync(file, note);
    const { body: _text, ...card } = await json(await call("GET", "/api/cards/people/Mira%20Vance"));
    expect((await call("PUT", "/api/cards/people/Mira%20Vance", card)).status).toBe(200);
    expect(fs.readFileSync(file, "utf8")).toBe(note);
    const res = await call("PATCH", "/api/cards/people/Mira%20Vance", { aliases: ["Mira", "Miri"] });
    expect(res.status).toBe(200);
    expect(fs.readFileSync(file, "utf8")).toBe(note.replace("  - The Cartographer", "  - Miri"));
  });

  // A new user's PUT of `{"fields": {"stance": …}}` alone, as the refusal above seemed to say, left
  // the card its title and that one section: PATCH sends only what changes.
  test("PATCH of one section changes that section alone: the others, the words and unknown keys stay", async () => {
    const file = path.join(root, "people", "Bob.md");
    const before = fs.readFileSync(file, "utf8");
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    const res = await call("PATCH", "/api/cards/people/Bob", {
      fields: { recent: "Sang a solo." },
      mtime: card.mtime,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).fields).toEqual({ ...card.fields, recent: "Sang a solo." });
    expect(fs.readFileSync(file, "utf8")).toBe(
      before.replace("\n\n## correspondence", "\n\n## recent\nSang a solo.\n\n## correspondence"),
    );
  });

  test.each<[string, Record<string, unknown>, (text: string) => void]>([
    [
      "a list replaces the card's, the text kept",
      { keywords: ["Bob", "choir"] },
      (text) => {
        expect(text).toContain("keywords: [Bob, choir]");
        expect(text).toContain("## who\nBob from the choir.");
      },
    ],
    [
      "a section sent empty is removed",
      { fields: { correspondence: "" } },
      (text) => {
        expect(text).not.toContain("correspondence");
        expect(text).toContain("## who\nBob from the choir.");
      },
    ],
    [
      "an unknown key sent as null is removed, another added",
      { extra: { emails: null, pronouns: "he" } },
      (text) => {
        expect(text).not.toContain("emails");
        expect(text).toContain("pronouns: he");
        expect(text).toContain("keywords: [Bob]");
      },
    ],
    [
      "body replaces the whole text",
      { body: "## who\nBob, now a baritone.\n" },
      (text) => {
        expect(text).toContain("## who\nBob, now a baritone.");
        expect(text).not.toContain("zeppelin");
        expect(text).toContain("emails: [bob@example.com]");
      },
    ],
  ])("PATCH: %s", async (_name, change, check) => {
    const res = await call("PATCH", "/api/cards/people/Bob", change);
    expect(res.status).toBe(200);
    check(fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8"));
  });

  test("PATCH with a stale mtime is 409 carrying the current version, and changes nothing", async () => {
    const card = await json(await call("GET", "/api/cards/people/Bob"));
    const file = path.join(root, "people", "Bob.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("choir", "band"));
    const onDisk = fs.readFileSync(file, "utf8");
    const res = await call("PATCH", "/api/cards/people/Bob", { fields: { who: "mine" }, mtime: card.mtime });
    expect(res.status).toBe(409);
    expect((await json(res)).current.fields.who).toBe("Bob from the band.");
    expect(fs.readFileSync(file, "utf8")).toBe(onDisk);
  });

  test.each([
    ["/api/cards/people/Nobody", { keywords: ["x"] }, 404, "not_found"],
    ["/api/cards/people/Bob", { fields: "who" }, 400, "invalid_input"],
    ["/api/cards/people/Bob", { extra: [1] }, 400, "invalid_input"],
  ])("PATCH %s %j is %d %s, and nothing is written", async (url, body, status, code) => {
    const before = fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8");
    const res = await call("PATCH", url, body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toBe(code);
    expect(fs.readFileSync(path.join(root, "people", "Bob.md"), "utf8")).toBe(before);
  });

  test.each([
    ["/api/cards/people/Nobody", { title: "x" }, 404, "not_found"],
    ["/api/cards/people/Bob", { title: "x", mtime: 12 }, 400, "invalid_input"],
    ["/api/cards/dragons/Bob", { title: "x" }, 400, "unknown_kind"],
  ])("PUT %s %j is %d %s", async (url, body, status, code) => {
    const res = await call("PUT", url, body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toBe(code);
  });

  test("DELETE moves the card to _archive/, and restore brings it back", async () => {
    const res = await call("DELETE", "/api/cards/people/Alice");
    expect(res.status).toBe(200);
    expect((await json(res)).archived).toMatchObject({
      kind: "people",
      key: "Alice",
      path: "_archive/people/Alice.md",
    });
    expect(fs.existsSync(path.join(root, "_archive", "people", "Alice.md"))).toBe(true);
    expect((await call("GET", "/api/cards/people/Alice")).status).toBe(404);
    const archived = (await json(await call("GET", "/api/cards?archived=1"))).cards;
    expect(archived).toEqual([
      expect.objectContaining({ key: "Alice", kind: "people", archived: true, original_key: "Alice" }),
    ]);
    const back = await call("POST", "/api/cards/people/Alice/restore");
    expect(back.status).toBe(200);
    expect(fs.existsSync(path.join(root, "people", "Alice.md"))).toBe(true);
    expect((await call("POST", "/api/cards/people/Alice/restore")).status).toBe(404);
    expect((await call("DELETE", "/api/cards/people/Nobody")).status).toBe(404);
  });

  test("restoring onto a live card of the same name is 409", async () => {
    await call("DELETE", "/api/cards/people/Alice");
    fs.writeFileSync(path.join(root, "people", "Alice.md"), "---\nkeywords: [Alice]\n---\nA new Alice.\n");
    const res = await call("POST", "/api/cards/people/Alice/restore");
    expect(res.status).toBe(409);
  });
});

describe("try, recent, checkup", () => {
  test("POST /api/try says what fires, on which words, in budget, plus candidate keywords", async () => {
    const res = await call("POST", "/api/try", { text: "Alice met Margaret Thornton at the corner cafe" });
    const body = await json(res);
    expect(body.fired.map((f: { key: string }) => f.key).sort()).toEqual(["Alice", "the corner cafe"]);
    expect(body.fired[0]).toEqual(expect.objectContaining({ hits: expect.any(Array), in_budget: true }));
    expect(body.candidates.names.concat(body.candidates.places)).toContain("Margaret Thornton");
    expect(body.logged).toBe(false);
    expect(fs.existsSync(path.join(root, ".lorecards", "hits.jsonl"))).toBe(false);
  });

  test("a word that only appears in a private section never makes the card fire", async () => {
    const body = await json(await call("POST", "/api/try", { text: "the zeppelin trip" }));
    expect(body.fired).toEqual([]);
  });

  test("earlier turns are scanned; a small budget leaves cards out", async () => {
    const body = await json(
      await call("POST", "/api/try", {
        text: "and the cafe?",
        turns: [{ role: "user", text: "Alice said hi" }],
        budget: 10,
      }),
    );
    expect(body.fired.length).toBe(2);
    expect(body.fired.filter((f: { in_budget: boolean }) => !f.in_budget).length).toBe(1);
    expect(body.truncated).toBe(1);
  });

  test("`with` asks for cards by name, which brings a manual card in; an unknown name is 404", async () => {
    fs.writeFileSync(
      path.join(root, "things", "Ledger.md"),
      "---\nkeywords: [ledger]\ncontext: manual\n---\nThe secret ledger.\n",
    );
    const named = await json(await call("POST", "/api/try", { text: "the ledger?" }));
    expect(named.injected).toEqual([]);
    const asked = await json(await call("POST", "/api/try", { text: "the ledger?", with: ["Ledger"] }));
    expect(asked.injected).toEqual(["Ledger"]);
    const unknown = await call("POST", "/api/try", { text: "hi", with: ["Nobody"] });
    expect(unknown.status).toBe(404);
  });

  test("char, user, budget_tokens and reach in the body act as try's flags; left_out lists what is out", async () => {
    fs.writeFileSync(
      path.join(root, "people", "Lyra.md"),
      "---\nkeywords: [Lyra]\npriority: 5\n---\n{{char}} trusts {{user}}.\n",
    );
    const body = await json(
      await call("POST", "/api/try", {
        text: "Lyra and Alice",
        char: "Seraphina",
        user: "Ann",
        budget_tokens: 1,
        reach: "named",
        seed: "s",
      }),
    );
    expect(body.context).toContain("Seraphina trusts Ann.");
    expect(body.left_out.map((l: { reason: string }) => l.reason)).toEqual(["budget_tokens"]);
    expect(body.fired[0]).toEqual(
      expect.objectContaining({ via: "named", policy: "automatic", verdict: "chosen", reason: null }),
    );
  });

  test.each([
    [{}, "invalid_input"],
    [{ text: "x", turns: "no" }, "invalid_input"],
    [{ text: "x", turns: [{ role: "robot", text: "y" }] }, "invalid_input"],
    [{ text: "x", budget: -1 }, "invalid_input"],
    [{ text: "x", budget_tokens: "many" }, "invalid_input"],
    [{ text: "x", reach: "far" }, "invalid_input"],
    [{ text: "x", char: 7 }, "invalid_input"],
  ])("POST /api/try %j is 400 %s", async (body, code) => {
    const res = await call("POST", "/api/try", body);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe(code);
  });

  test("?log=1 records the try in hits.jsonl, and GET /api/recent returns it", async () => {
    const body = await json(await call("POST", "/api/try?log=1", { text: "how is Alice?" }));
    expect(body.logged).toBe(true);
    const { hits } = await json(await call("GET", "/api/recent?limit=5"));
    expect(hits).toEqual([
      {
        time: "2026-09-13T10:00:00.000Z",
        source: "try",
        keys: ["Alice"],
        words: ["alice"],
        message: "how is Alice?",
      },
    ]);
  });

  test("--no-log overrides ?log=1", async () => {
    await setup({ noLog: true });
    const body = await json(await call("POST", "/api/try?log=1", { text: "how is Alice?" }));
    expect(body.logged).toBe(false);
    expect(fs.existsSync(path.join(root, ".lorecards", "hits.jsonl"))).toBe(false);
  });

  test("GET /api/recent with a bad limit is 400, and an empty log is an empty list", async () => {
    expect((await call("GET", "/api/recent?limit=-3")).status).toBe(400);
    expect((await call("GET", "/api/recent?limit=abc")).status).toBe(400);
    expect(await json(await call("GET", "/api/recent"))).toEqual({ hits: [] });
  });

  test("GET /api/checkup reports generic keywords and title mismatches", async () => {
    fs.writeFileSync(path.join(root, "slang", "ok.md"), "---\ntitle: Okay then\nkeywords: [the]\n---\nhm\n");
    const body = await json(await call("GET", "/api/checkup"));
    const codes = body.findings
      .filter((f: { card: string }) => f.card === "slang/ok")
      .map((f: { code: string }) => f.code);
    expect(codes).toContain("generic_keyword");
    expect(codes).toContain("title_mismatch");
    expect(body.cards).toBe(7);
  });
});

describe("import and export", () => {
  const book = {
    entries: {
      "0": {
        uid: 0,
        key: ["Mira"],
        keysecondary: [],
        comment: "Mira",
        content: "A cartographer.",
        order: 100,
        disable: false,
      },
    },
  };

  test("POST /api/import creates cards of the kind asked; existing ones are kept unless forced", async () => {
    const res = await call("POST", "/api/import", { book, kind: "people", force: false });
    expect(res.status).toBe(200);
    expect((await json(res)).created).toBe(1);
    expect(fs.readFileSync(path.join(root, "people", "Mira.md"), "utf8")).toContain("A cartographer.");
    const again = await json(await call("POST", "/api/import", { book, kind: "people" }));
    expect(again.kept).toBe(1);
    const forced = await json(await call("POST", "/api/import", { book, kind: "people", force: true }));
    expect(forced.overwritten).toBe(1);
  });

  test.each([
    [{}, 400, "invalid_input"],
    [{ book, kind: 3 }, 400, "invalid_input"],
    [{ book, force: "yes" }, 400, "invalid_input"],
    [{ book, kind: "dragons" }, 400, "unknown_kind"],
    [{ book: { entries: "nope" } }, 422, "parse_error"],
  ])("POST /api/import %j is %d %s", async (body, status, code) => {
    const res = await call("POST", "/api/import", body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toBe(code);
  });

  test("an import over the size limit is 413", async () => {
    await setup({ limits: { import: 50 } });
    expect((await call("POST", "/api/import", { book })).status).toBe(413);
  });

  test("GET /api/export is a SillyTavern lorebook of the vault, as a download, without private sections", async () => {
    const res = await call("GET", "/api/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("attachment");
    const out = await json(res);
    const entries = Object.values(out.entries) as { comment: string; key: string[]; content: string }[];
    expect(entries.map((e) => e.comment).sort()).toContain("Alice");
    expect(JSON.stringify(out)).not.toContain("zeppelin");
  });

  test("GET /api/export?format=card-png is a character card PNG carrying the book, and card PNG imports back", async () => {
    const res = await call("GET", "/api/export?format=card-png");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(new TextDecoder("latin1").decode(png)).not.toContain("zeppelin");
    const imported = await call("POST", "/api/import?kind=thing&filename=card.png", png, {
      "content-type": "image/png",
    });
    expect(imported.status).toBe(200);
    const counts = await json(imported);
    expect(counts.created).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(root, "things", "Bob.md"))).toBe(true);
  });

  test("GET /api/export with an unknown format is 400 naming the formats", async () => {
    const res = await call("GET", "/api/export?format=docx");
    expect(res.status).toBe(400);
    expect((await json(res)).detail).toContain("lorebook_v3");
  });
});

describe("guards", () => {
  const get = (headers: Record<string, string>, url = "/api/kinds") =>
    handle(new Request(`${BASE}${url}`, { headers }));

  test.each([
    ["a rebound DNS name", { host: "evil.example:8766" }],
    ["another port", { host: "127.0.0.1:9999" }],
    ["no port means 80", { host: "localhost" }],
    ["garbage", { host: "a b c" }],
  ])("a Host header naming %s is 403", async (_what, headers) => {
    const res = await get(headers);
    expect(res.status).toBe(403);
    expect((await json(res)).error).toBe("forbidden");
  });

  test.each(["localhost:8766", "127.0.0.1:8766", "[::1]:8766", "LOCALHOST:8766"])(
    "Host %s is served",
    async (host) => {
      expect((await get({ host })).status).toBe(200);
    },
  );

  test.each([
    ["another site", { origin: "http://evil.example" }],
    ["the same host on another port", { origin: "http://127.0.0.1:3000" }],
    ["an opaque origin", { origin: "null" }],
    ["a cross-site fetch", { "sec-fetch-site": "cross-site" }],
  ])("a request from %s is refused", async (_what, headers) => {
    const res = await get({ host: API_HOST, ...headers });
    expect(res.status).toBe(403);
  });

  test("the page's own origin is accepted", async () => {
    const res = await get({ host: API_HOST, origin: BASE, "sec-fetch-site": "same-origin" });
    expect(res.status).toBe(200);
  });

  test.each([
    ["POST", "/api/cards"],
    ["PUT", "/api/cards/people/Alice"],
    ["PATCH", "/api/cards/people/Alice"],
    ["DELETE", "/api/cards/people/Alice"],
    ["POST", "/api/cards/people/Alice/restore"],
    ["POST", "/api/try"],
    ["POST", "/api/import"],
  ])("%s %s without X-Lorecards: 1 is 403 and changes nothing", async (method, url) => {
    const res = await handle(
      new Request(`${BASE}${url}`, {
        method,
        headers: { host: API_HOST, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(res.status).toBe(403);
    // Said of the method, not of writing: a try writes nothing and needs the header all the same.
    expect((await json(res)).detail).toBe(
      `${method} requests must carry the header X-Lorecards: 1 (no page of another site can add it)`,
    );
    expect(fs.existsSync(path.join(root, "people", "Alice.md"))).toBe(true);
  });

  test("a CORS preflight is never answered", async () => {
    const res = await handle(
      new Request(`${BASE}/api/cards`, {
        method: "OPTIONS",
        headers: { host: API_HOST, origin: "http://evil.example" },
      }),
    );
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test.each([
    ["no header", {}, 401],
    ["a wrong token", { authorization: "Bearer nope" }, 401],
    ["a token of another scheme", { authorization: "Basic s3cret-token" }, 401],
    ["the token", { authorization: "Bearer s3cret-token" }, 200],
  ])("with --token, %s gives %d", async (_what, headers, status) => {
    await setup({ token: "s3cret-token" });
    const res = await get({ host: API_HOST, ...headers });
    expect(res.status).toBe(status);
    if (status === 401) expect((await json(res)).error).toBe("unauthorized");
  });

  test("unknown endpoints are 404, a known path with the wrong method is 405, and nothing is cached", async () => {
    const missing = await call("GET", "/api/nope");
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ error: "not_found", detail: expect.any(String) });
    const wrong = await call("POST", "/api/cards/people/Alice", {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, PUT, PATCH, DELETE");
    expect((await call("GET", "/api/kinds")).headers.get("cache-control")).toBe("no-store");
    expect((await call("GET", "/elsewhere")).status).toBe(404);
  });
});
