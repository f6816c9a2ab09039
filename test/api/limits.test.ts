// The API's write path against titles and terms no card should have: an outsized field is refused
// quickly with an error naming the field, its length and the limit; a title that is no legal file name
// still makes a card; a key that is refused says what to change.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { expectLinear } from "../support/growth.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let handle: (req: Request) => Promise<Response>;

beforeEach(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false });
  handle = createApi({ engine, hosts: ["127.0.0.1"], port: 8766, now: () => new Date(0) });
});
afterEach(() => {
  engine.close();
  removeDir(root);
});

async function send(method: string, url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await handle(apiRequest(method, url, body, headers));
  return {
    status: res.status,
    body: (await res.json()) as { error?: string; detail?: string; key?: string },
  };
}

const people = () => fs.readdirSync(path.join(root, "people")).sort();
const words = (n: number, width = 5) => Array.from({ length: n }, (_, i) => `w${i}`.padEnd(width, "x"));

describe("outsized fields", () => {
  test.each([
    ["a 50,000-character title", { title: "t".repeat(50_000) }, ["title", "50,000", "200"]],
    ["a 201-character title", { title: "t".repeat(201) }, ["title", "201", "200"]],
    [
      "a 150-character keyword",
      { title: "T", keywords: ["ok", "k".repeat(150)] },
      ["keywords", "150", "100"],
    ],
    ["a 101-character alias", { title: "T", aliases: ["a".repeat(101)] }, ["aliases", "101", "100"]],
    [
      "a long secondary word",
      { title: "T", secondary: { not: ["n".repeat(120)] } },
      ["secondary.not", "120"],
    ],
    ["a 201-character ref", { title: "T", refs: ["r".repeat(201)] }, ["refs", "201", "200"]],
    ["1,001 keywords", { title: "T", keywords: words(1001) }, ["keywords", "1,001", "1,000"]],
    ["1,001 aliases as one line", { title: "T", aliases: words(1001).join(", ") }, ["aliases", "1,001"]],
  ])(
    "POST with %s is refused, naming the field, its length and the limit",
    async (_name, fields, needles) => {
      const before = people();
      const res = await send("POST", "/api/cards", { kind: "people", ...fields });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_input");
      for (const needle of needles) expect(res.body.detail).toContain(needle);
      expect(people()).toEqual(before);
    },
  );

  test.each([
    ["a 201-character title", { title: "t".repeat(201) }, "title"],
    ["a 101-character keyword", { keywords: ["k".repeat(101)] }, "keywords"],
  ])("PUT with %s is refused and the card stays as it was", async (_name, fields, field) => {
    const file = path.join(root, "people", "Alice.md");
    const before = fs.readFileSync(file, "utf8");
    const res = await send("PUT", "/api/cards/people/Alice", fields);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
    expect(fs.readFileSync(file, "utf8")).toBe(before);
  });

  test("a title of exactly 200 characters and keywords of exactly 100 are accepted", async () => {
    const res = await send("POST", "/api/cards", {
      kind: "people",
      title: "t".repeat(200),
      keywords: ["k".repeat(100)],
    });
    expect(res.status).toBe(201);
  });
});

describe("outsized fields, refused in time linear in their size", () => {
  test.each([
    ["keywords", (n: number) => ({ keywords: words(n) })],
    ["a title", (n: number) => ({ title: "t".repeat(n) })],
  ])("%s", async (_name, fields) => {
    await expectLinear(
      async (n) =>
        expect((await send("POST", "/api/cards", { kind: "people", title: "T", ...fields(n) })).status).toBe(
          400,
        ),
      2_500,
      50_000,
    );
  });
});

describe("deeply nested bodies", () => {
  const deep = (depth: number) => {
    let v: unknown = "x";
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };

  test.each([
    ["POST", "/api/cards", (v: unknown) => ({ kind: "people", title: "Deep", extra: { note: v } })],
    ["PUT", "/api/cards/people/Alice", (v: unknown) => ({ extra: { note: v } })],
    [
      "POST",
      "/api/import",
      (v: unknown) => ({ book: { entries: [{ key: ["k"], content: "c", extra: v }] } }),
    ],
  ])(
    "%s %s nested deeper than 64 levels is refused at once with invalid_input",
    async (method, url, body) => {
      const before = people();
      const res = await send(method, url, body(deep(5000)));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: "invalid_input",
        detail: expect.stringContaining("64 levels"),
      });
      expect(people()).toEqual(before);
    },
  );

  test("refusing a deep body costs time linear in its size, the JSON never parsed", async () => {
    const raw = (depth: number) =>
      `{"kind":"people","title":"Deep","extra":{"note":${"[".repeat(depth)}"x"${"]".repeat(depth)}}}`;
    await expectLinear(
      async (depth) => expect((await send("POST", "/api/cards", raw(depth))).status).toBe(400),
      12_500,
      200_000,
    );
  });

  test("a card with an `extra` value nested 60 levels is written", async () => {
    const res = await send("POST", "/api/cards", {
      kind: "people",
      title: "Deep",
      extra: { note: deep(60) },
    });
    expect(res.status).toBe(201);
  });
});

describe("titles that are no legal file name", () => {
  test.each([
    ["aux.txt", "aux_.txt"],
    ["CON", "CON_"],
  ])("POST with the title %p and no key makes the card %p", async (title, key) => {
    const res = await send("POST", "/api/cards", { kind: "people", title });
    expect(res.status).toBe(201);
    expect(res.body.key).toBe(key);
    expect(fs.existsSync(path.join(root, "people", `${key}.md`))).toBe(true);
  });

  // Text that reads other than it is stored, or is no text at all, is refused in any title or word.
  test.each([
    [
      "a right-to-left override",
      { title: "invoice\u202etxt.exe" },
      "title holds U+202E (a bidirectional control) at character 8",
    ],
    [
      "an isolate",
      { title: "\u2066Alice\u2069 B" },
      "title holds U+2066 (a bidirectional control) at character 1",
    ],
    ["a NUL", { title: "Al\u0000ice" }, "title holds U+0000 (a control character) at character 3"],
    [
      "half a surrogate pair",
      { title: "Alice \ud800" },
      "title holds U+D800 (half a surrogate pair) at character 7",
    ],
    [
      "a NUL in a keyword",
      { title: "Alice", keywords: ["ok", "a\u0000"] },
      "keywords[1] holds U+0000 (a control character) at character 2",
    ],
  ])("POST with %s is refused, naming it", async (_name, fields, detail) => {
    const before = people();
    const res = await send("POST", "/api/cards", { kind: "people", ...fields });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input", detail });
    expect(people()).toEqual(before);
  });

  test.each([
    ["a device name", "aux.txt", '"aux_.txt"'],
    ["a right-to-left override", "invoice\u202etxt.exe", '"invoicetxt.exe"'],
    ["a slash", "a/b", '"a-b"'],
  ])("POST with a key that is %s is refused, suggesting a legal key", async (_name, key, suggestion) => {
    const before = people();
    const res = await send("POST", "/api/cards", { kind: "people", title: "T", key });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_key");
    expect(res.body.detail).toContain(suggestion);
    expect(people()).toEqual(before);
  });
});

describe("an import's kind", () => {
  test.each(["../..", "..", "entry/../..", "people/../../x"])(
    "%p is an unknown kind, and nothing is imported",
    async (kind) => {
      const before = fs.readdirSync(root).sort();
      const book = JSON.stringify({
        entries: { "0": { uid: 0, key: ["harbor"], comment: "harbor", content: "x" } },
      });
      const res = await send("POST", `/api/import?kind=${encodeURIComponent(kind)}&filename=b.json`, book, {
        "content-type": "application/octet-stream",
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("unknown_kind");
      expect(fs.readdirSync(root).sort()).toEqual(before);
    },
  );
});
