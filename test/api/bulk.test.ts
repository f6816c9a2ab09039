// Many cards at once over HTTP in-process (api/_steps.ts): each bulk action changes the files as it
// says, in one step of the history that one undo takes back; a stale card refuses the whole change
// with a 409 naming it; the vault's steps are listed newest first.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { apiRequest } from "../support/api-request.ts";
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

async function call(method: string, url: string, body?: unknown) {
  const res = await handle(apiRequest(method, url, body, { "x-lorecards-writer": "ui" }));
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const read = (rel: string) => fs.readFileSync(path.join(root, rel), "utf8");
const TWO = [
  { kind: "people", key: "Alice" },
  { kind: "places", key: "the corner cafe" },
];

describe("POST /api/bulk", () => {
  test.each([
    ["disable", undefined, "enabled: false"],
    ["context", "always", "context: always"],
    ["tag", "season 2", "tags: [season 2]"],
  ])("%s %s writes %s into every card named, as one step", async (action, value, line) => {
    const { status, json } = await call("POST", "/api/bulk", { action, value, cards: TWO });
    expect(status).toBe(200);
    expect(json.changed).toEqual(["people/Alice", "place/the corner cafe"]);
    expect(read("people/Alice.md")).toContain(line);
    expect(read("places/the corner cafe.md")).toContain(line);
    const history = await call("GET", "/api/history");
    const [newest] = history.json.steps as { step: number; action: string; cards: number; writer: string }[];
    expect(newest).toMatchObject({ step: json.step, action: "bulk", cards: 2, writer: "ui" });
  });

  test("enable, untag and context automatic take the keys out again, and the files are as they were", async () => {
    const before = read("people/Alice.md");
    for (const [action, value] of [
      ["disable", undefined],
      ["tag", "draft"],
      ["context", "never"],
    ])
      await call("POST", "/api/bulk", { action, value, cards: TWO });
    for (const [action, value] of [
      ["enable", undefined],
      ["untag", "draft"],
      ["context", "automatic"],
    ])
      expect((await call("POST", "/api/bulk", { action, value, cards: TWO })).status).toBe(200);
    expect(read("people/Alice.md")).toBe(before);
  });

  test("archive and kind change move the files; one undo of each puts them back", async () => {
    const alice = read("people/Alice.md");
    const archived = await call("POST", "/api/bulk", { action: "archive", cards: TWO });
    expect(fs.existsSync(path.join(root, "_archive", "people", "Alice.md"))).toBe(true);
    const undone = await call("POST", `/api/history/${archived.json.step}/undo`, {});
    expect(undone.status).toBe(200);
    expect(read("people/Alice.md")).toBe(alice);
    const moved = await call("POST", "/api/bulk", { action: "kind", value: "thing", cards: TWO });
    expect(read("things/Alice.md")).toContain("kind: thing");
    await call("POST", `/api/history/${moved.json.step}/undo`, {});
    expect(read("people/Alice.md")).toBe(alice);
    expect(fs.existsSync(path.join(root, "things", "Alice.md"))).toBe(false);
  });

  test("a card changed since the page read it refuses the whole change: 409 naming it, nothing written", async () => {
    const card = (await call("GET", "/api/cards/people/Alice")).json;
    fs.appendFileSync(path.join(root, "people", "Alice.md"), "Edited elsewhere.\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, "people", "Alice.md"), later, later);
    const cafe = read("places/the corner cafe.md");
    const { status, json } = await call("POST", "/api/bulk", {
      action: "disable",
      cards: [{ kind: "people", key: "Alice", mtime: card.mtime }, TWO[1]],
    });
    expect(status).toBe(409);
    expect(json.cards).toEqual(["people/Alice: changed since it was read"]);
    expect(read("places/the corner cafe.md")).toBe(cafe);
  });

  test.each([
    [{ action: "paint", cards: TWO }, "action must be one of"],
    [{ action: "context", value: "sometimes", cards: TWO }, "value must be one of automatic"],
    [{ action: "tag", value: "a, b", cards: TWO }, "value must be one tag"],
    [{ action: "disable", cards: [] }, "cards must be a non-empty list"],
    [{ action: "kind", value: "planet", cards: TWO }, "planet"],
  ])("a request that cannot be done is a 400 saying why: %j", async (body, says) => {
    const { status, json } = await call("POST", "/api/bulk", body);
    expect(status).toBe(400);
    expect(String(json.detail)).toContain(says);
  });

  test("an undo refused because a card changed since is a 409 naming it", async () => {
    const { json } = await call("POST", "/api/bulk", { action: "disable", cards: TWO });
    fs.appendFileSync(path.join(root, "people", "Alice.md"), "later\n");
    const undo = await call("POST", `/api/history/${json.step}/undo`, {});
    expect(undo.status).toBe(409);
    expect(undo.json.cards).toEqual([`people/Alice: changed since step #${json.step}`]);
  });
});

describe("GET /api/history", () => {
  test("one step shows every version it holds, each with its summary", async () => {
    const { json } = await call("POST", "/api/bulk", { action: "tag", value: "x", cards: TWO });
    const step = await call("GET", `/api/history/${json.step}`);
    expect(step.json).toMatchObject({ step: json.step, note: 'tagged "x"', cards: 2, kept: 2 });
    const versions = step.json.versions as { kind: string; key: string; summary: string }[];
    expect(versions.map((v) => [v.kind, v.key, v.summary])).toEqual([
      ["people", "Alice", "tags (+1 -0 lines)"],
      ["place", "the corner cafe", "tags (+1 -0 lines)"],
    ]);
    expect((await call("GET", "/api/history/99999")).status).toBe(404);
    expect((await call("GET", "/api/history/x1")).status).toBe(400);
  });
});
