// A card's history over HTTP in-process (api/_history.ts): the list, one version with its diff, the
// revert, and who each write is attributed to: the editor when it says so, any other client as "api".
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { API_HOST, apiRequest } from "../support/api-request.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let handle: (req: Request) => Promise<Response>;

beforeEach(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false });
  handle = createApi({ engine, hosts: ["127.0.0.1"], port: 8766 });
});
afterEach(() => {
  engine.close();
  removeDir(root);
});

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await handle(apiRequest(method, url, body, headers));
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const UI = { "x-lorecards-writer": "ui" };
type Version = { version: number; writer: string; action: string; summary: string };

async function versions(kind: string, key: string): Promise<Version[]> {
  const { status, json } = await call("GET", `/api/cards/${kind}/${encodeURIComponent(key)}/history`);
  expect(status).toBe(200);
  return json.versions as Version[];
}

describe("who wrote it", () => {
  test("every write the editor sends is the editor's; the same writes from another client are the API's", async () => {
    for (const [key, headers, writer] of [
      ["Card one", UI, "ui"],
      ["Card two", {}, "api"],
      ["Card three", { "x-lorecards-writer": "mcp" }, "api"],
    ] as const) {
      const made = await call("POST", "/api/cards", { kind: "people", title: key, keywords: ["x"] }, headers);
      expect(made.status).toBe(201);
      const put = await call(
        "PUT",
        `/api/cards/people/${encodeURIComponent(key)}`,
        { keywords: ["y"] },
        headers,
      );
      expect(put.status).toBe(200);
      await call("DELETE", `/api/cards/people/${encodeURIComponent(key)}`, undefined, headers);
      await call("POST", `/api/cards/people/${encodeURIComponent(key)}/restore`, {}, headers);
      expect((await versions("people", key)).map((v) => [v.action, v.writer])).toEqual([
        ["restore", writer],
        ["archive", writer],
        ["update", writer],
        ["create", writer],
      ]);
    }
  });

  test("an import through the API is the import's", async () => {
    const book = { entries: { 0: { uid: 0, key: ["dragon"], comment: "Dragon", content: "A red dragon." } } };
    expect((await call("POST", "/api/import", { book }, UI)).status).toBe(200);
    expect((await versions("entry", "Dragon")).map((v) => [v.action, v.writer])).toEqual([
      ["import", "import"],
    ]);
  });
});

describe("history and revert", () => {
  test("one version comes with its text before and after and a diff; a revert brings it back", async () => {
    const file = path.join(root, "people", "Alice.md");
    const before = fs.readFileSync(file, "utf8");
    await call("PUT", "/api/cards/people/Alice", { keywords: ["alice", "ally"] }, UI);
    const [v] = await versions("people", "Alice");
    const one = await call("GET", `/api/cards/people/Alice/history?version=${v!.version}`);
    expect(one.status).toBe(200);
    expect([one.json.before, one.json.after, one.json.writer]).toEqual([
      before,
      fs.readFileSync(file, "utf8"),
      "ui",
    ]);
    const lines = (one.json.diff as { lines: string[] }[]).flatMap((h) => h.lines);
    expect(lines.filter((l) => l.startsWith("+") || l.startsWith("-")).length).toBeGreaterThan(0);
    const card = await call("GET", "/api/cards/people/Alice");
    const back = await call(
      "POST",
      "/api/cards/people/Alice/revert",
      { version: v!.version, mtime: card.json.mtime },
      UI,
    );
    expect(back.status).toBe(200);
    expect([back.json.reverted_to, back.json.changed]).toEqual([v!.version, false]);
  });

  test("a revert to the text before an edit, with a stale mtime, is a 409 carrying the current card", async () => {
    const first = await call("PUT", "/api/cards/people/Alice", { keywords: ["alice", "ally"] });
    await call("PUT", "/api/cards/people/Alice", { keywords: ["alice", "al"] });
    const [, older] = await versions("people", "Alice");
    const res = await call("POST", "/api/cards/people/Alice/revert", {
      version: older!.version,
      mtime: first.json.mtime,
    });
    expect(res.status).toBe(409);
    expect((res.json.current as { keywords: string[] }).keywords).toEqual(["alice", "al"]);
  });

  test.each([
    ["a version that is no number", "/api/cards/people/Alice/history?version=x", 400],
    ["a version of no card", "/api/cards/people/Alice/history?version=999", 404],
    ["an unknown kind", "/api/cards/nope/Alice/history", 400],
  ])("%s is refused", async (_what, url, status) => {
    expect((await call("GET", url)).status).toBe(status);
  });

  test("a card with no recorded versions has an empty list, and the API says how many are kept", async () => {
    const { json } = await call("GET", "/api/cards/people/Alice/history");
    expect(json).toEqual({ kind: "people", key: "Alice", kept: 50, versions: [] });
  });

  test("a name that is no card and has no history is 404, as lorecards history exits 3", async () => {
    const res = await call("GET", "/api/cards/people/Nobody/history");
    expect([res.status, res.json.error]).toEqual([404, "not_found"]);
  });

  test("a revert without the write header is refused like every write", async () => {
    const res = await handle(
      new Request(`http://${API_HOST}/api/cards/people/Alice/revert`, {
        method: "POST",
        headers: { host: API_HOST, "content-type": "application/json" },
        body: JSON.stringify({ version: 1 }),
      }),
    );
    expect(res.status).toBe(403);
  });
});

describe("a save that changes nothing", () => {
  /** What the editor's form sends for a card it shows unchanged (ui/_form-read.ts). */
  const editorSave = (over: Record<string, unknown>) => ({
    kind: "place",
    title: "Glade",
    keywords: ["glade", "refuge"],
    aliases: [],
    tags: [],
    refs: [],
    secondary: { all: [], any: [], not: [], not_all: [] },
    scan_depth: null,
    priority: 0,
    enabled: true,
    inject: true,
    extra: { position: 4, st: { uid: 2 } },
    body: "A safe haven in the forest.\n",
    ...over,
  });

  test("an imported card saved unchanged from the editor stays byte for byte, with no new version", async () => {
    // As an import writes one: defaults spelled out, a lorebook field, the fields it kept.
    const text =
      "---\nkind: place\ntitle: Glade\nkeywords: [glade, refuge]\naliases: []\npriority: 0\nenabled: true\n" +
      "inject: true\nposition: 4\nst:\n  uid: 2\n---\nA safe haven in the forest.\n";
    const file = path.join(root, "places", "Glade.md");
    fs.writeFileSync(file, text);
    const before = await versions("places", "Glade");
    const put = await call("PUT", "/api/cards/places/Glade", editorSave({}), UI);
    expect(put.status).toBe(200);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(await versions("places", "Glade")).toEqual(before);
  });

  test("a field the form sends as its default still resets one the file set otherwise", async () => {
    const file = path.join(root, "places", "Glade.md");
    fs.writeFileSync(
      file,
      "---\nkind: place\ntitle: Glade\nkeywords: [glade, refuge]\nenabled: false\nposition: 4\nst:\n  uid: 2\n---\nA safe haven in the forest.\n",
    );
    const put = await call("PUT", "/api/cards/places/Glade", editorSave({}), UI);
    expect(put.status).toBe(200);
    expect(fs.readFileSync(file, "utf8")).toBe(
      "---\nkind: place\ntitle: Glade\nkeywords: [glade, refuge]\nposition: 4\nst:\n  uid: 2\n---\nA safe haven in the forest.\n",
    );
  });
});
