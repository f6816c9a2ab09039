/**
 * A manual card (`context: manual`) never comes in on its words; the person asks for it by name. The
 * gateway takes the names in `X-Lorecards-With` and never forwards that header.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openaiBody } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";

const suite = gatewaySuite();

describe("cards asked for by name in the gateway", () => {
  test("a manual card named in the chat stays out; asked for in X-Lorecards-With it comes in", async () => {
    const { vault, h } = await suite.setup({ replay: false, reinjectAfter: 0 });
    fs.writeFileSync(
      path.join(vault, "people", "Orrin.md"),
      "---\nkeywords: [Orrin]\ncontext: manual\n---\nOrrin keeps the secret ledger.\n",
    );
    const body = openaiBody({ messages: [{ role: "user", content: "what does Orrin do?" }] });
    const plain = await h.send("/v1/chat/completions", body);
    expect(plain.headers.get("x-lorecards-injected")).toBeNull();

    const asked = await h.send("/v1/chat/completions", body, { "x-lorecards-with": "Orrin, nobody" });
    expect(asked.headers.get("x-lorecards-injected")).toBe("Orrin");
    const sent = suite.upstream().received.at(-1)!;
    expect(sent.body).toContain("Orrin keeps the secret ledger.");
    expect(JSON.stringify(sent.headers)).not.toContain("x-lorecards-with");
  });
});
