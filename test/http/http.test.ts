// The shared web helpers: the bad-token throttle (per address, per IPv6 /64, bounded), listen()'s
// refusal of requests without Host (which protects the gateway and MCP over HTTP too), and the
// editor's security headers.
import { describe, expect, test } from "bun:test";
import { addressKey, createThrottle, listen, securityHeaders } from "../../src/http/index.ts";

describe("the throttle", () => {
  const clocked = (options = {}) => {
    let now = 0;
    const t = createThrottle({ now: () => now, ...options });
    return { t, tick: (ms: number) => (now += ms) };
  };

  test("five failures in a minute pause an address for a minute; others are not affected", () => {
    const { t, tick } = clocked();
    for (let i = 0; i < 4; i++) t.fail("203.0.113.7");
    expect(t.refuse("203.0.113.7")).toBeNull();
    t.fail("203.0.113.7");
    expect(t.refuse("203.0.113.7")?.status).toBe(429);
    expect(t.refuse("203.0.113.7")?.headers.get("retry-after")).toBe("60");
    expect(t.refuse("203.0.113.8")).toBeNull();
    tick(59_500);
    expect(t.refuse("203.0.113.7")?.headers.get("retry-after")).toBe("1");
    tick(500);
    expect(t.refuse("203.0.113.7")).toBeNull();
  });

  test("failures older than the window do not count", () => {
    const { t, tick } = clocked();
    for (let i = 0; i < 20; i++) {
      t.fail("198.51.100.1");
      tick(15_001);
    }
    expect(t.refuse("198.51.100.1")).toBeNull();
  });

  test("every address of one IPv6 /64 counts as one", () => {
    const { t } = clocked();
    for (let i = 1; i <= 5; i++) t.fail(`2001:db8:1:2::${i}`);
    expect(t.refuse("2001:db8:1:2:ffff::1")?.status).toBe(429);
    expect(t.refuse("2001:db8:1:3::1")).toBeNull();
  });

  test("the map never holds more than maxAddresses; finished entries go first, then the oldest", () => {
    const { t, tick } = clocked({ maxAddresses: 3 });
    for (let i = 0; i < 5; i++) t.fail("192.0.2.1");
    t.fail("192.0.2.2");
    tick(61_000);
    t.fail("192.0.2.3");
    t.fail("192.0.2.4");
    expect(t.size).toBe(2);
    for (let i = 5; i < 50; i++) t.fail(`192.0.2.${i}`);
    expect(t.size).toBe(3);
  });

  test.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::9", "2001:db8:1:2::/64"],
    ["[2001:db8::1]", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
  ])("%s is counted as %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe("listen()", () => {
  test("a request without Host gets a 400 and never reaches the handler", async () => {
    let reached = 0;
    const server = listen({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        reached++;
        return new Response(new URL(req.url).pathname);
      },
    });
    try {
      const answer = await new Promise<string>((resolve) => {
        let text = "";
        Bun.connect({
          hostname: "127.0.0.1",
          port: server.port,
          socket: {
            open: (s) => void s.write("POST /v1/chat/completions HTTP/1.0\r\n\r\n"),
            data: (_s, d) => {
              text += new TextDecoder().decode(d);
            },
            close: () => resolve(text),
            error: () => resolve(text),
          },
        });
      });
      expect(answer).toStartWith("HTTP/1.1 400 ");
      expect(reached).toBe(0);
      expect(await (await fetch(`${server.url}/ok`)).text()).toBe("/ok");
      expect(reached).toBe(1);
    } finally {
      await server.stop(true);
    }
  });
});

describe("security headers", () => {
  test("the page's policy gains frame-ancestors 'none', beside the three fixed headers", () => {
    expect(securityHeaders("default-src 'none'; img-src 'self';")).toEqual({
      "content-security-policy": "default-src 'none'; img-src 'self'; frame-ancestors 'none'",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
  });
});
