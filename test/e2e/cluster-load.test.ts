/**
 * The load run of bench/cluster.ts, shortened for CI: three compiled gateways serving 100 tenants
 * (`--tenants`, each with a vault of its own) on one Postgres store behind HAProxy (the docs' example
 * configuration), 200 conversations of those tenants over 64 connections for 20 s, against an upstream
 * that checks what it receives (test/support/load.ts). It asserts what the full run must show, never
 * how fast: no error, and against what the upstream saw, no acknowledged turn lost, none sent twice or
 * out of order, every request append-only, no card twice; and in each tenant's space of the shared
 * store, every conversation's clock at the last turn its client had answered.
 */

import { afterAll, describe, expect, test } from "bun:test";
import { generateCards } from "../../bench/_gen.ts";
import { tenantToken, writeTenants } from "../../bench/gen-vault.ts";
import { openStore } from "../../src/state/index.ts";
import { ensureBinary } from "../support/binary.ts";
import { haveHaproxy, startCluster } from "../support/cluster.ts";
import { runLoad, startCheckingUpstream, verify } from "../support/load.ts";
import { startPostgres } from "../support/postgres.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const CONVERSATIONS = 200;
const TENANTS = 100;
const pg = await startPostgres("cluster load test");
const ready = pg !== null && haveHaproxy("cluster load test");
afterAll(async () => pg?.stop());

describe("the load's checks", () => {
  test("the checking upstream catches a turn lost, one twice, a request not append-only and a card twice", async () => {
    const upstream = startCheckingUpstream();
    const system = { role: "system", content: "[load t 0]" };
    const block = "<ours>\n### Alice [people]\nA friend.\n</ours>\n\n";
    const send = (messages: object[]) =>
      fetch(`${upstream.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ messages }),
      }).then((r) => r.text());
    const u = (text: string) => ({ role: "user", content: text });
    const a = { role: "assistant", content: "Noted." };
    await send([system, u(`${block}hi Alice`)]);
    await send([system, u(`${block}hi Alice`), a, u("again")]);
    await send([system, u(`${block}hi Alice`), a, u("again")]); // turn 2 twice
    await send([system, u("hi Alice"), a, u("again"), a, u(`${block}${block}more`)]); // block gone; Alice twice
    const acknowledged = new Map([["0", 5]]); // turns 4 and 5 never reached it
    const v = verify(
      { seconds: 1, requests: 5, errors: 0, errorSamples: [], latencies: [], acknowledged },
      "t",
      upstream.logs,
    );
    await upstream.close();
    expect(v).toEqual({ lost: 2, duplicated: 1, outOfOrder: 2, breaks: 1, twice: 1 });
  });
});

describe.skipIf(!ready)("three gateways on Postgres under load (shortened)", () => {
  test("100 tenants, 200 conversations, 64 connections, 20 s: no error, no turn lost or twice, append-only, no card twice", async () => {
    const bin = await ensureBinary();
    const work = tempDir();
    const cards = generateCards(40);
    const tenants = writeTenants(work, TENANTS, cards);
    const upstream = startCheckingUpstream();
    // What is tested is the shared state under load, not how fast this machine is: the deadline after
    // which a gateway gives up on its state (2 s by default) is made long enough for a busy CI machine.
    const store = pg!.store("load", "timeout=30");
    const cluster = await startCluster({
      bin,
      upstream: upstream.url,
      store,
      home: work,
      args: ["--tenants", tenants],
    });
    try {
      const result = await runLoad({
        target: cluster.url,
        tag: "ci",
        conversations: CONVERSATIONS,
        connections: 64,
        seconds: 20,
        turns: 20,
        tokens: Array.from({ length: TENANTS }, (_, i) => tenantToken(i)),
        line: (n, t) =>
          t % 3 === 0
            ? `I ran into ${cards[(n * 31 + t * 977) % cards.length]!.title} at the station.`
            : "It rained all afternoon.",
      });
      expect({ errors: result.errors, samples: result.errorSamples }).toEqual({ errors: 0, samples: [] });
      // A request passed on unchanged (its state too slow to come) is a failure here too: say why.
      const unchanged = cluster.nodes
        .flatMap((n) => n.stderr().split("\n"))
        .filter((l) => l.includes("unchanged"));
      expect(unchanged).toEqual([]);
      expect(result.requests).toBeGreaterThan(CONVERSATIONS);
      expect(verify(result, "ci", upstream.logs)).toEqual({
        lost: 0,
        duplicated: 0,
        outOfOrder: 0,
        breaks: 0,
        twice: 0,
      });
      // What the store keeps agrees: in its tenant's space, each conversation that got a card is at
      // the turn last answered (slot N is tenant N % TENANTS's).
      let kept = 0;
      for (let t = 0; t < TENANTS; t++) {
        const state = await openStore(pg!.store(`load.t${t}`, "timeout=30"));
        for (const [name, acked] of result.acknowledged) {
          if (Number(name.split(".")[0]) % TENANTS !== t) continue;
          const c = await state.loadConversation(`ci-${name}`);
          if (c.turn === 0) continue;
          kept++;
          expect({ name, turn: c.turn }).toEqual({ name, turn: acked });
        }
        await state.close();
      }
      // Not a check of nothing: most conversations that reached turn 3 (the first to name a card) are kept.
      const named = [...result.acknowledged.values()].filter((turn) => turn >= 3).length;
      expect({ named: named > 0, kept: kept >= named / 2 }).toEqual({ named: true, kept: true });
    } finally {
      await cluster.stop();
      await upstream.close();
      removeDir(work);
    }
  }, 180_000);
});
