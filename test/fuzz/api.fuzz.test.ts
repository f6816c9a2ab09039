// Fuzzing the HTTP API handler (createApi) in process with `new Request(…)`: every route with bodies
// of the right shape and wrong types, odd methods, paths, names and headers. Every answer is a 2xx or
// a 4xx `{error, detail}` envelope (never a 5xx or a stack), a refusal leaves the vault as it was, and
// nothing is ever written outside it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createApi } from "../../src/api/index.ts";
import { openEngine } from "../../src/recall/index.ts";
import { nested } from "./_arbitraries.ts";
import { HOST, type Req, request, toRequest } from "./_requests.ts";
import {
  announce,
  attempt,
  expectFast,
  expectUntouched,
  fuzz,
  initOddVault,
  renewing,
  type Sandbox,
  sandbox,
  timeoutFor,
} from "./_support.ts";

announce("api");

const BUDGET = { runs: 1500, ms: 6000 };
const LIMITS = { json: 64 * 1024, import: 256 * 1024 };
/** Deep enough to overflow the stack of any recursive walk (the YAML writer did, from ~10,000). */
const DEEP_NESTING = 20_000;

/** A stack trace line (`    at fn (file.ts:1:2)`), looked for line by line so a long detail stays linear. */
const STACK_LINE = /^\s*at \S.*:\d+:\d+\)?$/;

function checkAnswer(r: Req, status: number, headers: Headers, text: string): void {
  expect(status).toBeLessThan(500);
  // Anything that may carry card data stays out of caches.
  if (status < 300) expect(headers.get("cache-control")).toBe("no-store");
  if (status < 400 || r.method === "HEAD") return;
  expect(headers.get("content-type") ?? "").toStartWith("application/json");
  const envelope = JSON.parse(text) as Record<string, unknown>;
  expect(typeof envelope.error).toBe("string");
  expect(typeof envelope.detail).toBe("string");
  expect(Object.keys(envelope).filter((k) => k !== "error" && k !== "detail" && k !== "current")).toEqual([]);
  const stack = (envelope.detail as string).split("\n").find((line) => STACK_LINE.test(line));
  if (stack !== undefined) throw new Error(`the answer shows a stack trace: ${stack}`);
}

/** A vault with its engine and API. */
interface Server {
  box: Sandbox;
  handle: (req: Request) => Promise<Response>;
  close(): void;
}

async function server(): Promise<Server> {
  const box = sandbox(initOddVault);
  const engine = await openEngine(box.root, { segmenter: false });
  const handle = createApi({ engine, hosts: ["localhost", "127.0.0.1", "::1"], port: 8766, limits: LIMITS });
  return {
    box,
    handle,
    close: () => {
      engine.close();
      box.remove();
    },
  };
}

describe("the HTTP API", () => {
  const servers = renewing(server);

  test(
    "answers every request with a 2xx or a 4xx envelope, and a refusal changes no card",
    async () => {
      await fuzz(
        "api/requests",
        fc.asyncProperty(request, async (r) => {
          const { box, handle, before } = await servers.take();
          const out = await attempt(async () => {
            const res = await handle(toRequest(r));
            return { status: res.status, headers: res.headers, text: await res.text() };
          });
          await expectFast(out, `${r.method} ${r.path}`);
          if (!out.ok) throw out.error;
          checkAnswer(r, out.value.status, out.value.headers, out.value.text);
          const refused = out.value.status >= 400 ? `the API answered ${out.value.status}` : undefined;
          expectUntouched(box, before, refused);
        }),
        BUDGET,
      );
    },
    timeoutFor(BUDGET),
  );
});

describe("bugs the fuzzing found, fixed", () => {
  let s: Server;
  beforeAll(async () => {
    s = await server();
  });
  afterAll(() => s.close());
  const send = (method: string, path: string, body?: unknown) =>
    s.handle(
      new Request(`http://${HOST}${path}`, {
        method,
        headers: { host: HOST, "x-lorecards": "1", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  test("POST /api/cards with a deeply nested `extra` value is a 4xx, not a 500", async () => {
    const extra = { note: nested(DEEP_NESTING, "arrays") };
    expect((await send("POST", "/api/cards", { kind: "people", title: "Deep", extra })).status).toBeLessThan(
      500,
    );
  });

  test("POST /api/import of a book with a deeply nested entry field is a 4xx, not a 500", async () => {
    const book = {
      entries: { "0": { key: ["deep"], content: "x", extra: nested(DEEP_NESTING, "arrays") } },
    };
    expect((await send("POST", "/api/import", { book })).status).toBeLessThan(500);
  });

  test("GET of a card with `enabled: {toString: 0}` is a 200, not a 500", async () => {
    expect((await send("GET", "/api/cards/people/Weird")).status).toBe(200);
  });

  test("PUT on a card whose frontmatter is `~` is a 200, not a 500", async () => {
    expect((await send("PUT", "/api/cards/people/Tilde", { title: "Tilde" })).status).toBe(200);
  });

  test("restoring an archived card that does not parse leaves it archived (422)", async () => {
    expect((await send("DELETE", "/api/cards/people/Broken")).status).toBe(200);
    const res = await send("POST", "/api/cards/people/Broken/restore");
    expect(res.status).toBe(422);
    expect(Object.keys(s.box.files())).toContain("_archive/people/Broken.md");
    expect(Object.keys(s.box.files())).not.toContain("people/Broken.md");
  });

  test("POST /api/import of a card whose spec_version is `{toString: 0}` is not a 500", async () => {
    const book = { spec: "chara_card_v2", spec_version: { toString: 0 }, data: {} };
    expect((await send("POST", "/api/import", { book })).status).toBeLessThan(500);
  });

  test("a PUT on a card whose frontmatter block is empty writes it readable", async () => {
    // A key goes into the empty block (its title, the file name's, is no longer written: 3ddeb87).
    const res = await send("PUT", "/api/cards/people/Empty", { title: "Empty", keywords: ["empty"] });
    expect(res.status).toBe(200);
    expect(s.box.files()["people/Empty.md"]).toStartWith("---\nkeywords: [empty]\n---\n");
    expect((await (await send("GET", "/api/cards/people/Empty")).json()).keywords).toEqual(["empty"]);
  });

  test("a card whose note has a whitespace-only line is written so that it reads back", async () => {
    const res = await send("POST", "/api/cards", { kind: "people", title: "Eve", note: " \n\t\n" });
    expect(res.status).toBe(201);
    expect(s.box.files()["people/Eve.md"]).toContain('note: "\\ \\n\\t\\n"');
  });

  test("an edit of a title written twice is kept", async () => {
    const res = await send("PUT", "/api/cards/people/Twice", { title: "C" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { title: string }).title).toBe("C");
    expect(s.box.files()["people/Twice.md"]).not.toContain("Twice again");
  });
});
