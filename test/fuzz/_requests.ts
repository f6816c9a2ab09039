/**
 * Requests for the HTTP API fuzz suite: every route of the editor's API with the bodies it takes (right
 * types with odd values, and wrong types), then any method, path and body together; the guard headers
 * mostly right, now and then wrong. Names are percent-encoded, or sent raw for the URL parser to judge.
 */
import fc from "fast-check";
import { anyString, jsonValue, SPECIALS, shapedObject, shortString, sometimes } from "./_arbitraries.ts";
import { bookJson } from "./_books.ts";
import { ODD_CARDS } from "./_support.ts";

export const HOST = "127.0.0.1:8766";

const KINDS = ["people", "event", "place", "thing", "slang", "entry", "People", "dragons", ""];
const ODD_KEYS = Object.keys(ODD_CARDS).map((rel) => rel.slice(rel.indexOf("/") + 1, -3));
const KEYS = ["Alice", "the Friday deploy", "the corner cafe", "Bob", "New one", "小林", ...ODD_KEYS];

/** encodeURIComponent, which throws on a lone surrogate: that one is sent as invalid UTF-8 instead. */
function encode(v: string): string {
  return v.isWellFormed() ? encodeURIComponent(v) : `${encodeURIComponent(v.toWellFormed())}%ED%A0%80`;
}

/** A path segment: mostly percent-encoded, sometimes raw (the URL parser then has its say). */
function segment(values: readonly string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 2, arbitrary: fc.constantFrom(...SPECIALS) },
    { weight: 1, arbitrary: shortString },
  );
  return fc.oneof(
    { weight: 4, arbitrary: value.map(encode) },
    { weight: 1, arbitrary: value.map((v) => v.replace(/[#?\s]/g, "")) },
  );
}

const query = (name: string, values: fc.Arbitrary<string>) =>
  fc.option(
    values.map((v) => `${name}=${encode(v)}`),
    { nil: "" },
  );

const words = fc.oneof(fc.array(fc.oneof(shortString, fc.integer()), { maxLength: 4 }), shortString);

/** A card as the editor sends it, each field right or wrong. */
const cardBody = shapedObject({
  kind: fc.constantFrom(...KINDS),
  key: fc.oneof(fc.constantFrom(...KEYS), shortString),
  title: anyString,
  keywords: words,
  aliases: words,
  refs: words,
  secondary: shapedObject({ all: words, any: words, not: words }),
  scan_depth: fc.oneof(fc.integer({ min: -2, max: 20 }), fc.constantFrom("3", "", "x")),
  priority: fc.oneof(fc.integer(), fc.constantFrom("1", "1.5")),
  enabled: fc.boolean(),
  inject: fc.boolean(),
  fields: fc.dictionary(
    fc.constantFrom("who", "recent", "correspondence", "", "## x", ...SPECIALS.slice(0, 6)),
    anyString,
    { maxKeys: 4 },
  ),
  preamble: anyString,
  body: anyString,
  extra: fc.dictionary(shortString, jsonValue([], 2), { maxKeys: 3 }),
  mtime: fc.oneof(fc.constantFrom("0", ""), shortString),
});

/** A card body of the right types (odd strings inside): what gets past validation and is written. */
const goodCardBody = fc.record(
  {
    kind: fc.constantFrom("people", "event", "place", "thing", "slang", "entry"),
    key: fc.oneof(fc.constantFrom(...KEYS), shortString),
    title: anyString,
    keywords: fc.array(shortString, { maxLength: 4 }),
    aliases: fc.array(shortString, { maxLength: 2 }),
    fields: fc.dictionary(fc.constantFrom("who", "recent", "stance", "correspondence", "notes"), anyString, {
      maxKeys: 3,
    }),
    body: anyString,
    extra: fc.dictionary(shortString, jsonValue([], 2), { maxKeys: 2 }),
    enabled: fc.boolean(),
    priority: fc.integer({ min: -5, max: 5 }),
  },
  { requiredKeys: ["kind"] },
);

/** The cards every fresh vault has, so an update finds one. */
const EXISTING = [
  "people/Alice",
  "event/the%20Friday%20deploy",
  "place/the%20corner%20cafe",
  "thing/the%20green%20notebook",
  "slang/yak%20shaving",
  "entry/about%20these%20cards",
  ...Object.keys(ODD_CARDS).map((rel) => {
    const [dir, file] = rel.split("/") as [string, string];
    const kind = { people: "people", slang: "slang", things: "thing" }[dir];
    return `${kind}/${encodeURIComponent(file.slice(0, -3))}`;
  }),
];

const tryBody = shapedObject({
  text: anyString,
  sentence: anyString,
  turns: fc.array(shapedObject({ role: fc.constantFrom("user", "assistant", "system"), text: anyString }), {
    maxLength: 4,
  }),
  budget: fc.oneof(fc.integer({ min: -1, max: 5000 }), fc.constant(1.5)),
  scan_depth: fc.integer({ min: -1, max: 10 }),
});

const importBody = shapedObject({
  book: bookJson,
  kind: fc.constantFrom(...KINDS),
  force: fc.boolean(),
  filename: anyString,
});

type Body =
  | { kind: "json"; value: unknown }
  | { kind: "text"; value: string }
  | { kind: "bytes"; value: Uint8Array };

const body: fc.Arbitrary<Body | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 6,
    arbitrary: fc
      .oneof(cardBody, tryBody, importBody, jsonValue([], 3))
      .map((value): Body => ({ kind: "json", value })),
  },
  { weight: 1, arbitrary: anyString.map((value): Body => ({ kind: "text", value })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 256 }).map((value): Body => ({ kind: "bytes", value })),
  },
);

const rarely = <T>(arb: fc.Arbitrary<T>) => sometimes(arb, 20);

const headers = fc
  .record({
    host: fc.oneof(
      { weight: 20, arbitrary: fc.constant(HOST) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("evil.example", "127.0.0.1:1", "[::1]:8766", "localhost:8766", "", "a b"),
      },
    ),
    "x-lorecards": fc.oneof(
      { weight: 20, arbitrary: fc.constant("1") },
      { weight: 1, arbitrary: fc.constantFrom("0", "true") },
    ),
    "content-type": fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/octet-stream",
      "text/plain",
      "image/png",
    ),
    origin: rarely(fc.constantFrom("http://127.0.0.1:8766", "http://evil.example", "null")),
    "sec-fetch-site": rarely(fc.constantFrom("same-origin", "cross-site", "none")),
  })
  .map(
    (h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
  );

const cardPathArb = fc.tuple(segment(KINDS), segment(KEYS)).map(([k, key]) => `/api/cards/${k}/${key}`);
const json = (arb: fc.Arbitrary<unknown>) => arb.map((value): Body => ({ kind: "json", value }));
const files = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  bookJson.map((b) => new TextEncoder().encode(JSON.stringify(b) ?? "null")),
);

/** Each route with the bodies it takes; then any method, path and body together. */
const route = fc.oneof(
  fc.record({
    method: fc.constant("GET"),
    path: fc.constantFrom("/api/kinds", "/api/checkup", "/api/cards", "/api/cards?archived=1"),
    body: fc.constant(null),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: query("kind", fc.constantFrom(...KINDS)).map((q) => `/api/cards?${q}`),
    body: fc.constant(null),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: query("limit", fc.oneof(fc.constantFrom("0", "-1", "1.5", "1e9", "x"), fc.nat().map(String))).map(
      (q) => `/api/recent?${q}`,
    ),
    body: fc.constant(null),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: query(
      "format",
      fc.constantFrom("st", "lorebook_v3", "card-json", "card-png", "charx", "zip", ""),
    ).map((q) => `/api/export?${q}`),
    body: fc.constant(null),
  }),
  fc.record({ method: fc.constantFrom("GET", "DELETE"), path: cardPathArb, body: fc.constant(null) }),
  fc.record({
    method: fc.constant("POST"),
    path: cardPathArb.map((p) => `${p}/restore`),
    body: fc.constant(null),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: fc.constant("/api/cards"),
      body: json(cardBody),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: fc.constant("/api/cards"),
      body: json(goodCardBody),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ method: fc.constant("PUT"), path: cardPathArb, body: json(cardBody) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      method: fc.constant("PUT"),
      path: fc.constantFrom(...EXISTING).map((p) => `/api/cards/${p}`),
      body: json(fc.oneof(goodCardBody, cardBody).map(({ kind: _k, key: _key, ...rest }) => rest)),
    }),
  },
  fc.record({
    method: fc.constantFrom("DELETE", "GET"),
    path: fc.constantFrom(...EXISTING).map((p) => `/api/cards/${p}`),
    body: fc.constant(null),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: query("log", fc.constantFrom("1", "true", "x")).map((q) => `/api/try?${q}`),
      body: json(tryBody),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: fc.constant("/api/import"),
      body: json(importBody),
    }),
  },
  fc.record({
    method: fc.constant("POST"),
    path: fc
      .tuple(
        query("kind", fc.constantFrom(...KINDS)),
        query("force", fc.constantFrom("1", "0", "true", "maybe")),
      )
      .map(([a, b]) => `/api/import?${a}&${b}`),
    body: files.map((value): Body => ({ kind: "bytes", value })),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"),
      path: fc.oneof(
        fc.constantFrom("/api/", "/api/nope", "/api/cards/", "/", "/api/kinds/x"),
        fc
          .array(segment(["api", "cards", "people", "Alice", "restore", ".."]), { maxLength: 5 })
          .map((s) => `/api/${s.join("/")}`),
        cardPathArb,
      ),
      body,
    }),
  },
);

export const request = fc.tuple(route, headers).map(([r, h]) => ({ ...r, headers: h }));

export type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

export function toRequest(r: Req): Request {
  const hasBody = r.body !== null && r.method !== "GET" && r.method !== "HEAD";
  const payload =
    !hasBody || r.body === null
      ? undefined
      : r.body.kind === "json"
        ? (JSON.stringify(r.body.value) ?? "null")
        : r.body.value;
  return new Request(`http://${HOST}${r.path}`, {
    method: r.method,
    headers: r.headers,
    body: payload as BodyInit | undefined,
  });
}
