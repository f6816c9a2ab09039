/**
 * Timed effects across the requests of one conversation: the gateway keeps recall's memory in its
 * store, so a sticky card stays in on a later request that does not name it, as SillyTavern keeps it.
 */

import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";

const suite = gatewaySuite();

function card(vault: string, key: string, frontmatter: string, body: string): void {
  fs.writeFileSync(path.join(vault, "people", `${key}.md`), `---\n${frontmatter}\n---\n${body}`);
}

describe("timed effects in the gateway", () => {
  test("a sticky card named in one request is still injected in the next, which does not name it", async () => {
    // Plain per-turn injection and a window of the current message alone: only stickiness can bring it back.
    const { vault, h } = await suite.setup({ window: 0, replay: false, reinjectAfter: 0 });
    card(vault, "Lyra", "keywords: [Lyra]\nsticky: 3", "Lyra keeps bees.\n");
    card(vault, "Mira", "keywords: [Mira]", "Mira sells honey.\n");
    const headers = { "x-lorecards-conversation": "bees" };
    const messages: Msg[] = [{ role: "user", content: "where are Lyra and Mira?" }];
    const first = await h.send("/v1/chat/completions", openaiBody({ messages }), headers);
    expect(first.headers.get("x-lorecards-injected")).toBe("Lyra,Mira");

    messages.push({ role: "assistant", content: "By the hives." }, { role: "user", content: "and then?" });
    const second = await h.send("/v1/chat/completions", openaiBody({ messages }), headers);
    expect(second.headers.get("x-lorecards-injected")).toBe("Lyra");
    expect(suite.upstream().received.at(-1)!.body).toContain("Lyra keeps bees.");

    const store = await openStore(stateUrl(vault));
    try {
      expect((await store.loadConversation("bees")).timed).toEqual({
        "people/Lyra": { last: 1, stickyUntil: 4 },
      });
    } finally {
      await store.close();
    }
  });
});
