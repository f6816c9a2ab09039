/**
 * Replay over a long conversation: every upstream request must start with the previous one, byte for
 * byte, up to the end of its messages, so a provider's prompt cache keeps hitting. Cards fire on most
 * turns, old ones come back with `--reinject-after`, and the client (like a real one) resends each
 * message without what the gateway injected.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Msg } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { PROTOCOLS } from "../support/protocols.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const SCRIPT = [
  "morning! did the friday deploy happen?",
  "I had coffee at the corner cafe",
  "Alice called from Lyon",
  "nothing much to add",
  "back to the deploy: it failed",
  "小林 fixed it",
  "I wrote it down in the blue notebook",
  "Alice says hi",
  "the cafe was closed today",
  "another friday deploy is coming",
  "ok, bye",
  "one more thing about Alice",
];

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream({ reply: (_body, i) => `Reply number ${i}, noted.` });
});
afterAll(async () => {
  await upstream.close();
});

const MODES = PROTOCOLS.flatMap((p) =>
  (["user", "system"] as const)
    .filter((mode) => p.systemKeepsPrefix || mode !== "system")
    .map((mode) => ({ p, mode, label: `${p.name} --inject ${mode}` })),
);

describe.each(MODES)("replay, $label", ({ p, mode }) => {
  test("over 12 turns each upstream request starts with the previous one byte for byte", async () => {
    const vault = makeVault();
    const h = harness(vault, upstream, { inject: mode, reinjectAfter: 4 });
    try {
      const messages: Msg[] = [];
      const bodies: string[] = [];
      let injectedTurns = 0;
      for (const line of SCRIPT) {
        messages.push({ role: "user", content: line });
        const res = await h.send(p.path, p.build({ system: "You are a friend.", messages }));
        expect(res.status).toBe(200);
        if (res.headers.get("x-lorecards-injected")) injectedTurns++;
        const reply = (await res.json()) as Record<string, unknown>;
        bodies.push(upstream.received[upstream.received.length - 1]!.body);
        messages.push({ role: "assistant", content: p.replyText(reply) });
      }
      expect(injectedTurns).toBeGreaterThanOrEqual(8);
      for (let i = 1; i < bodies.length; i++) {
        expect(bodies[i]!.startsWith(p.prefix(bodies[i - 1]!))).toBe(true);
      }
    } finally {
      h.close();
      removeDir(vault);
    }
  });
});
