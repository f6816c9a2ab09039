/**
 * Section 5 of the gateway benchmarks (gateway.ts): how much of each upstream request repeats the one
 * before it, over a scripted conversation through a real gateway handler in this process.
 */

import { createHandler, vaultDeps } from "../src/gateway/index.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import type { GenCard } from "./_gen.ts";
import { CHAT } from "./_servers.ts";

export /** Section 5: scripted 30 turns; each user message names one or two cards, most turns fire. */
async function prefixStability(
  vault: string,
  cards: readonly GenCard[],
  replay: boolean,
): Promise<{ reuse: number; minReuse: number; fired: number }> {
  const received: string[] = [];
  const up = startFakeUpstream({ reply: (_b, i) => `Reply ${i}: that is good to know.` });
  const deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: () => {} });
  const handler = createHandler({
    upstream: new URL(up.url),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false, replay },
    deps,
  });
  // A conversation of its own in every run: the vault may be one an earlier run wrote state into.
  const conversation = `prefix-${replay}-${Date.now()}`;
  const messages: { role: string; content: string }[] = [{ role: "system", content: "You are a friend." }];
  let fired = 0;
  for (let turn = 0; turn < 30; turn++) {
    const card = cards[(turn * 37) % cards.length]!;
    const extra = turn % 3 === 0 ? ` and ${cards[(turn * 53 + 7) % cards.length]!.title}` : "";
    messages.push({
      role: "user",
      content: `Today I thought about ${card.title}${extra}. What do you remember?`,
    });
    const res = await handler(
      new Request(`http://127.0.0.1${CHAT}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-lorecards-conversation": conversation,
        },
        body: JSON.stringify({ model: "m", messages }),
      }),
    );
    if (res.headers.has("x-lorecards-injected")) fired++;
    const reply = (await res.json()) as { choices: { message: { content: string } }[] };
    received.push(up.received[up.received.length - 1]!.body);
    messages.push({ role: "assistant", content: reply.choices[0]!.message.content });
  }
  await deps.close();
  await up.close();
  const shares: number[] = [];
  for (let i = 1; i < received.length; i++) {
    const prev = received[i - 1]!;
    const cur = received[i]!;
    let n = 0;
    while (n < prev.length && prev.charCodeAt(n) === cur.charCodeAt(n)) n++;
    shares.push(n / prev.length);
  }
  return { reuse: shares.reduce((a, b) => a + b, 0) / shares.length, minReuse: Math.min(...shares), fired };
}
