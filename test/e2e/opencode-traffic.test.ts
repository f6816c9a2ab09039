/**
 * opencode 1.18.33's first prompt (test/fixtures/clients/opencode-run/: its title request, then the
 * agent's) and the `opencode run --continue` request after it, replayed through the compiled gateway.
 * opencode sends the first two at the same moment, so either may reach the gateway first; the title
 * request's own line ("Generate a title for this conversation:") is the client talking, not a turn
 * (src/clients.ts), so both are turn 1 and the next prompt finds the first turn's card in place, not
 * sent again, whichever came first. test/e2e/opencode.test.ts runs the client itself.
 */

import { describe, expect, test } from "bun:test";
import path from "node:path";
import { REPO } from "../support/binary.ts";
import { blocksIn } from "../support/canonical.ts";
import { cardsIn, upstreamBody } from "../support/client-checks.ts";
import { loadSession, type Recorded, replaySession } from "../support/client-replay.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";

type Message = { role: string; content: string };

const [title, agent] = loadSession(path.join(REPO, "test", "fixtures", "clients", "opencode-run"));

/** The `--continue` request: the agent's messages, the reply, and the next prompt, quoted as opencode does. */
function continued(): Recorded {
  const body = structuredClone(agent!.body) as { messages: Message[] };
  body.messages.push({ role: "assistant", content: "Zorblax trades in lanterns." });
  body.messages.push({ role: "user", content: '"And what does Zorblax sell?"' });
  return { ...agent!, body };
}

const messagesOf = (x: Parameters<typeof upstreamBody>[0]) =>
  ((upstreamBody(x)?.messages ?? []) as Message[]).map((m) => m.content);

describe.each([
  ["the title request", [title!, agent!]],
  ["the agent's request", [agent!, title!]],
])("opencode's first prompt, %s first, then --continue", (_first, order) => {
  test("both first requests carry the card; the next prompt gets it back in place and no second copy", async () => {
    const replay = await replaySession([...order, continued()], CLIENT_CARDS);
    try {
      const byRequest = replay.exchanges.map((x) =>
        blocksIn(upstreamBody(x), replay.markers).flatMap(cardsIn),
      );
      expect(byRequest, replay.stderr()).toEqual([["Zorblax"], ["Zorblax"], ["Zorblax"]]);
      const agentFirst = messagesOf(replay.exchanges[order[0] === agent ? 0 : 1]!);
      const next = messagesOf(replay.exchanges[2]!);
      expect(next[1]).toBe(agentFirst[1]!);
      expect(next[1]).toContain(replay.markers.open);
      expect(next.at(-1)).toBe('"And what does Zorblax sell?"');
    } finally {
      await replay.close();
    }
  });
});
