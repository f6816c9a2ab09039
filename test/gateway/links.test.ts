// The gateway never injects a card it could only reach through a symbolic link (README "Symbolic
// links"): the request goes upstream as the client sent it, without the text behind the link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { type LinkedVault, linkedVault, SECRET } from "../support/links.ts";

let upstream: FakeUpstream;
let linked: LinkedVault;
beforeAll(() => {
  upstream = startFakeUpstream();
  linked = linkedVault();
});
afterAll(async () => {
  await upstream.close();
  linked.remove();
});

describe("symbolic links and the gateway", () => {
  test("a card reached only through a link is not injected; a real card in the same message is", async () => {
    const h = harness(linked.root, upstream);
    try {
      const res = await h.send(
        "/v1/chat/completions",
        openaiBody({ messages: [{ role: "user", content: "zanzibar, and the friday deploy" }] }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
      const sent = upstream.received[upstream.received.length - 1]!.body;
      expect(sent).toContain("Every Friday afternoon");
      expect(sent).not.toContain(SECRET);
    } finally {
      h.close();
    }
  });
});
