/**
 * A running gateway and what happens to its vault on disk meanwhile: its state file deleted (the next
 * requests' state lands in a new one, with one line on stderr), the whole vault moved away (nothing is
 * re-created, requests pass through unchanged with one line, cards come back with the vault).
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { vaultDeps } from "../../src/gateway/index.ts";
import { statePath } from "../../src/state/index.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type Harness, harness } from "../support/gateway.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

const CHAT = "/v1/chat/completions";
const conversation = { "x-lorecards-conversation": "kept" };
const last = () => upstream.received[upstream.received.length - 1]!;

function opened(vault: string): Harness {
  const h = harness(vault, upstream);
  cleanup.push(() => h.close());
  return h;
}

/** A conversation that grows one user message per call, the way a client resends it. */
function chat(h: Harness) {
  const messages: Msg[] = [];
  return async (line: string) => {
    messages.push({ role: "user", content: line });
    const raw = JSON.stringify(openaiBody({ messages }));
    const res = await h.sendRaw(CHAT, raw, conversation);
    messages.push({ role: "assistant", content: "Noted." });
    return { injected: res.headers.get("x-lorecards-injected"), raw, sent: last().body };
  };
}

describe("a state file deleted under a running gateway", () => {
  test.each([
    ["state.db alone", (file: string) => fs.rmSync(file)],
    [
      "state.db with its -wal and -shm",
      (file: string) => {
        for (const s of ["", "-wal", "-shm"]) fs.rmSync(file + s, { force: true });
      },
    ],
    ["the whole .lorecards folder", (file: string) => fs.rmSync(path.dirname(file), { recursive: true })],
  ])(
    "(%s) is opened anew: the next requests' state is in a state.db another store can read, said once",
    async (_name, remove) => {
      const vault = makeVault();
      cleanup.push(() => removeDir(vault));
      const h = opened(vault);
      const say = chat(h);
      expect((await say("the friday deploy?")).injected).toBe("the Friday deploy");
      remove(statePath(vault));
      // What was in context went with the file: the deploy card, still in the window, comes again
      // (after Alice, who is named in the current message).
      expect((await say("and Alice?")).injected).toBe("Alice,the Friday deploy");
      expect((await say("the corner cafe")).injected).toBe("the corner cafe");

      const other = await vaultStore(vault);
      cleanup.push(() => void other.close());
      const state = await other.loadConversation("kept");
      expect(state.turn).toBe(3);
      expect(state.injections.map((i) => i.id).sort()).toEqual([
        "event/the Friday deploy",
        "people/Alice",
        "place/the corner cafe",
      ]);
      expect(state.replays.map((r) => r.anchor)).toEqual([2, 4]);
      const lines = h.warnings.filter((w) => w.includes("state.db"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("deleted or replaced");
    },
  );
});

describe("a vault moved away from a running gateway", () => {
  test("is not re-created: requests pass through unchanged with one line on stderr, and cards come back with it", async () => {
    const vault = makeVault();
    const away = `${vault}-away`;
    cleanup.push(() => {
      removeDir(vault);
      removeDir(away);
    });
    const h = opened(vault);
    const say = chat(h);
    expect((await say("the friday deploy?")).injected).toBe("the Friday deploy");

    fs.renameSync(vault, away);
    for (const line of ["and Alice?", "the corner cafe", "the blue notebook"]) {
      const { injected, raw, sent } = await say(line);
      expect(injected).toBeNull();
      expect(sent).toBe(raw);
    }
    expect(fs.existsSync(vault)).toBe(false);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain(`no vault at ${vault}`);

    fs.renameSync(away, vault);
    expect((await say("Alice, again")).injected).toContain("Alice");
    expect(h.warnings).toHaveLength(2);
    expect(h.warnings[1]).toContain("is there now");
  });

  test("a gateway started on a missing vault creates nothing there, says so once, and injects once it exists", async () => {
    const parent = tempDir();
    cleanup.push(() => removeDir(parent));
    const vault = path.join(parent, "not-yet");
    const h = opened(vault);
    const say = chat(h);
    for (const line of ["the friday deploy?", "and Alice?"]) {
      const { injected, raw, sent } = await say(line);
      expect(injected).toBeNull();
      expect(sent).toBe(raw);
    }
    expect(fs.readdirSync(parent)).toEqual([]);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain(`no vault at ${vault}`);

    fs.renameSync(makeVault(), vault);
    expect((await say("the corner cafe")).injected).toContain("the corner cafe");
  });

  test("the default vault is created when the gateway starts, and not again once it is gone", async () => {
    const parent = tempDir();
    cleanup.push(() => removeDir(parent));
    const vault = path.join(parent, ".lorecards");
    const warnings: string[] = [];
    const deps = vaultDeps({
      vaultRoot: vault,
      engine: { create: true, watch: false },
      warn: (l) => warnings.push(l),
    });
    cleanup.push(() => deps.close());
    expect(fs.existsSync(path.join(vault, "people"))).toBe(true);
    expect(warnings.join("\n")).toContain(`created the vault ${vault}`);

    removeDir(vault);
    expect(deps.ready()).toBe(false);
    expect(deps.ready()).toBe(false);
    expect(fs.existsSync(vault)).toBe(false);
    expect(warnings.filter((w) => w.includes("no vault"))).toHaveLength(1);
  });
});
