/**
 * The gateway with `--inject index` (README "Index mode and adoption"), in process: the index goes in
 * front of the newest user message in either protocol, the stable block (the guide) keeps its text,
 * and a recall that cannot be recorded never costs the request its index.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { statePath } from "../../src/state/index.ts";
import { openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { textOf } from "../support/protocols/_shared.ts";
import { PROTOCOLS } from "../support/protocols.ts";
import { markersOf, vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const sent = () => JSON.parse(upstream.received.at(-1)!.body);
const conversation = { "x-lorecards-conversation": "conv-1" };

function queryOf(text: string): string {
  return /, query: (q[0-9a-f]{12})\)\. /.exec(text)?.[1] ?? "";
}

const index = (query: string) =>
  `Memory index (session: conv-1, query: ${query}). Open a card with read_card(name, session, query).\n` +
  "score | card | words that fired it\n" +
  "2 | people/Alice | alice\n";

describe("the gateway in index mode", () => {
  test.each([...PROTOCOLS])(
    "$name: the index goes in front of the newest user message, and is recorded",
    async (p) => {
      const vault = makeVault();
      const h = harness(vault, upstream, { inject: "index" });
      try {
        const res = await h.send(
          p.path,
          p.build({ messages: [{ role: "user", content: "hi alice" }] }),
          conversation,
        );
        expect(res.status).toBe(200);
        const m = await markersOf(vault);
        const text = textOf(p.userMessages(upstream.received.at(-1)!.body)[0]!.content);
        const query = queryOf(text);
        expect(text).toStartWith(`${m.open}\n${index(query)}${m.close}`);
        expect(text).toEndWith("hi alice");
        const store = await vaultStore(vault);
        expect((await store.findRecall("conv-1", query))?.cards).toEqual(["people/Alice"]);
        await store.close();
      } finally {
        h.close();
        removeDir(vault);
      }
    },
  );

  test("the guide keeps its text in the stable block; only the rest is an index", async () => {
    const vault = makeVault();
    fs.writeFileSync(path.join(vault, "guide.md"), "Write down names; never secrets.\n");
    const h = harness(vault, upstream, { inject: "index" });
    try {
      await h.send(
        "/v1/chat/completions",
        openaiBody({ messages: [{ role: "user", content: "hi alice" }] }),
        conversation,
      );
      const text: string = sent().messages[0].content;
      expect(text).toContain("Write down names; never secrets.");
      expect(text).toContain("| people/Alice | alice\n");
      expect(text).not.toContain("The user's sister");
    } finally {
      h.close();
      removeDir(vault);
    }
  });

  test("a recall that cannot be recorded costs the request nothing but a line on stderr", async () => {
    const vault = makeVault();
    const store = await vaultStore(vault);
    await store.commitTurn("other", { turn: 1, now: 1 });
    await store.close();
    const db = new Database(statePath(vault));
    db.exec("DROP TABLE recalls");
    db.close();
    const h = harness(vault, upstream, { inject: "index" });
    try {
      const res = await h.send(
        "/v1/chat/completions",
        openaiBody({ messages: [{ role: "user", content: "hi alice" }] }),
        conversation,
      );
      expect(res.status).toBe(200);
      expect(sent().messages[0].content).toContain("| people/Alice | alice\n");
      // The answer ends once what the turn recorded is settled, the lost recall said by then.
      await res.text();
      expect(h.warnings).toEqual([expect.stringContaining("lorecards gateway: recall not recorded")]);
    } finally {
      h.close();
      removeDir(vault);
    }
  });
});
