/**
 * The gateway on group commit (src/state/_write-queue.ts): requests in flight together share one
 * state transaction, which never holds a request up on its way upstream; each answer ends only once
 * its own write is committed, so the client, which needs the answer before its next turn, never sends
 * that turn before the state it needs is stored (and dedupe and replay survive a crash right after any
 * complete answer). When the shared commit fails, the requests in it keep their cards and stderr says
 * that their state was not saved.
 */

import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { createHandler, vaultDeps } from "../../src/gateway/index.ts";
import { statePath } from "../../src/state/index.ts";
import { openaiBody } from "../support/bodies.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const vaults: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const v of vaults.splice(0)) removeDir(v);
});

const FRIDAY = "event/the Friday deploy";

/** Cards another connection (another process) sees committed for a conversation right now. */
function committedCards(vault: string, conversation: string): string[] {
  const db = new Database(statePath(vault), { readonly: true });
  try {
    return db
      .query<{ card: string }, [string]>(
        "SELECT card FROM injections JOIN conversations c ON c.n = injections.conversation " +
          "WHERE c.id = ? ORDER BY card",
      )
      .all(conversation)
      .map((r) => r.card);
  } finally {
    db.close();
  }
}

interface Forwarded {
  body: string;
  /** What the state file held for the request's conversation when the request went upstream. */
  committed: string[];
}

/** The answer read to its end, then what the state file holds for `conversation`. */
async function committedAfter(res: Response, vault: string, conversation: string): Promise<string[]> {
  await res.text();
  return committedCards(vault, conversation);
}

/**
 * A handler whose upstream is a function: it answers at once, so a write still waiting for its
 * commit when the request is forwarded would be caught there. `conversationOf` names the conversation
 * a forwarded body belongs to, whose committed cards are read then (null: none read).
 */
function gateway(
  vault: string,
  conversationOf: (body: string) => string | null,
  breakState = () => {},
  statesLength = false,
) {
  const warnings: string[] = [];
  const forwarded: Forwarded[] = [];
  const deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: (l) => warnings.push(l) });
  closers.push(() => deps.close());
  const upstream = async (_url: string | URL | Request, init?: RequestInit) => {
    const body = String(init?.body);
    const conversation = conversationOf(body);
    forwarded.push({ body, committed: conversation === null ? [] : committedCards(vault, conversation) });
    const answer = JSON.stringify({ choices: [{ message: { role: "assistant", content: "Noted." } }] });
    // An answer over HTTP states its length; one made here states none unless told.
    const length: Record<string, string> = statesLength ? { "content-length": String(answer.length) } : {};
    return new Response(answer, { headers: { "content-type": "application/json", ...length } });
  };
  const handler = createHandler({
    upstream: new URL("http://127.0.0.1:9"),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false },
    // Between reading the conversation and committing it, when asked: the commit is what fails.
    deps: {
      ...deps,
      recall: async (turns, opts) => {
        const result = await deps.recall(turns, opts);
        breakState();
        return result;
      },
    },
    fetch: upstream as typeof fetch,
  });
  const send = (conversation: string, raw: string) =>
    handler(
      new Request("http://127.0.0.1:8765/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": conversation },
        body: raw,
      }),
    );
  return { send, forwarded, warnings };
}

const chat = (n: number) =>
  JSON.stringify(openaiBody({ messages: [{ role: "user", content: `request ${n}: the friday deploy?` }] }));
const numberIn = (body: string) => /request (\d+)/.exec(body)?.[1] ?? "?";

describe("gateway: group commit", () => {
  test.each([
    ["its length unstated", false],
    ["its length stated", true],
  ])(
    "requests sent together go upstream before their shared commit; each answer (%s) ends only once its own state is committed",
    async (_form, statesLength) => {
      const vault = makeVault();
      vaults.push(vault);
      const g = gateway(vault, (body) => `g-${numberIn(body)}`, undefined, statesLength);
      const responses = await Promise.all(Array.from({ length: 12 }, (_, n) => g.send(`g-${n}`, chat(n))));
      expect(responses.map((r) => r.headers.get("x-lorecards-injected"))).toEqual(
        Array(12).fill("the Friday deploy"),
      );
      expect(g.forwarded).toHaveLength(12);
      // Sent together, they went upstream before the commit they share.
      expect(g.forwarded.filter((f) => f.committed.length === 0).length).toBeGreaterThan(0);
      const committed = await Promise.all(responses.map((r, n) => committedAfter(r, vault, `g-${n}`)));
      expect(committed).toEqual(Array(12).fill([FRIDAY]));
      expect(g.warnings).toEqual([]);
    },
  );

  test("a commit that fails keeps the requests' cards, with a line on stderr for each; the next one injects", async () => {
    const vault = makeVault();
    vaults.push(vault);
    let broken = false;
    const g = gateway(
      vault,
      () => null,
      () => {
        if (broken) return;
        broken = true;
        // The state file becomes something no database can be opened on, after the requests read it.
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(statePath(vault) + suffix, { force: true });
        fs.mkdirSync(statePath(vault));
      },
    );
    const raws = [chat(1), chat(2)];
    const responses = await Promise.all(raws.map((raw, i) => g.send(`f-${i}`, raw)));
    expect(responses.map((r) => r.headers.get("x-lorecards-injected"))).toEqual([
      "the Friday deploy",
      "the Friday deploy",
    ]);
    for (const r of responses) expect(await r.text()).toContain("Noted.");
    const lost = g.warnings.filter((l) => l.includes("was not saved"));
    expect(lost.map((l) => /state of (f-\d)/.exec(l)?.[1]).sort()).toEqual(["f-0", "f-1"]);
    expect(lost[0]).toContain("state.db");

    fs.rmdirSync(statePath(vault));
    const after = await g.send("f-after", chat(3));
    expect(after.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
  });
});
