import { describe, expect, test } from "bun:test";
import { responseHeaders, upstreamUrl } from "../../src/gateway/proxy.ts";

describe("response headers", () => {
  test.each([
    ["no CORS from the upstream: nothing to expose", {}, null],
    [
      "a CORS upstream: our header is exposed",
      { "access-control-allow-origin": "*" },
      "x-lorecards-injected",
    ],
    [
      "an upstream that exposes others: ours is added",
      { "access-control-allow-origin": "*", "access-control-expose-headers": "x-request-id" },
      "x-request-id, x-lorecards-injected",
    ],
    [
      "an upstream that exposes everything: left alone",
      { "access-control-allow-origin": "*", "access-control-expose-headers": "*" },
      "*",
    ],
  ])("%s", (_name, upstream, exposed) => {
    const out = responseHeaders(new Headers(upstream), ["Alice"]);
    expect(out.get("x-lorecards-injected")).toBe("Alice");
    expect(out.get("access-control-expose-headers")).toBe(exposed);
  });

  test("hop-by-hop headers, and any the Connection header names, are dropped", () => {
    const out = responseHeaders(
      new Headers({
        connection: "close, x-private",
        "keep-alive": "timeout=5",
        "x-private": "1",
        "x-kept": "2",
      }),
      [],
    );
    expect([...out.keys()].sort()).toEqual(["x-kept"]);
  });
});

describe("the upstream address", () => {
  test.each([
    ["https://api.openai.com", "/v1/chat/completions", "https://api.openai.com/v1/chat/completions"],
    ["https://api.openai.com/v1", "/v1/chat/completions", "https://api.openai.com/v1/chat/completions"],
    ["https://api.openai.com/v1/", "/v1/models?x=1", "https://api.openai.com/v1/models?x=1"],
    ["https://host/api/v1", "/v1/messages", "https://host/api/v1/messages"],
    ["https://host/base", "/v1/messages", "https://host/base/v1/messages"],
    ["https://host/v1", "/chat/completions", "https://host/v1/chat/completions"],
  ])("%s + %s → %s", (upstream, path, expected) => {
    expect(upstreamUrl(new URL(upstream), new URL(`http://127.0.0.1:8765${path}`))).toBe(expected);
  });
});
