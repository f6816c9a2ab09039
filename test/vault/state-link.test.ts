// A vault whose `.lorecards` (or `.lorecards/backups`) is a symbolic link: lorecards' state, the marker
// secret and backups were written through it, outside the vault; only restore-backup refused. The rule
// is the cards' rule (README "Symbolic links"): never follow a link inside the vault, on any surface.
// Each surface below either refuses, naming the link, or (the gateway) forwards the request untouched,
// and nothing is written where the link points.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { writeBackup } from "../../src/backup/index.ts";
import { runHook } from "../../src/hook/index.ts";
import { openEngine } from "../../src/recall/index.ts";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { createCard, openVault } from "../../src/vault/index.ts";
import { startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

let root = "";
let outside = "";

/** Every path under `outside`, with its size: equal snapshots mean nothing was written there. */
function snapshot(): string[] {
  return (fs.readdirSync(outside, { recursive: true }) as string[]).sort();
}

async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    expect(err).toMatchObject({ code: "forbidden" });
    return (err as Error).message;
  }
  throw new Error("not refused");
}

describe.each([
  [".lorecards", ""],
  [".lorecards/backups", "backups"],
])("a vault whose %s is a symbolic link", (linked, sub) => {
  beforeEach(() => {
    root = makeVault();
    outside = tempDir();
    const at = path.join(root, ".lorecards", sub);
    fs.rmSync(at, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(outside, at);
  });
  afterEach(() => {
    removeDir(root);
    removeDir(outside);
  });

  test("a backup is refused, naming the link, and writes nothing there", async () => {
    const before = snapshot();
    expect(await refusal(() => writeBackup(openVault(root)))).toContain(`${linked} is a symbolic link`);
    expect(snapshot()).toEqual(before);
  });

  if (sub !== "") return;

  test("the state store, a card write and an engine that persists refuse it or keep to memory", async () => {
    const before = snapshot();
    expect(await refusal(() => openStore(stateUrl(root)))).toContain(".lorecards is a symbolic link");
    expect(
      await refusal(() =>
        createCard(openVault(root), { kind: "people", key: "Zed", frontmatter: {}, body: "## who\nZed.\n" }),
      ),
    ).toContain(".lorecards is a symbolic link");
    const engine = await openEngine(root, { persist: true, segmenter: false, watch: false });
    try {
      await engine.recall([{ role: "user", text: "alice" }]);
    } finally {
      engine.close();
    }
    expect(snapshot()).toEqual(before);
  });

  test("the hook refuses, naming the link, and writes nothing there", async () => {
    const before = snapshot();
    const stdin = JSON.stringify({
      hook_event_name: "UserPromptSubmit",
      session_id: "s1",
      cwd: "/tmp",
      prompt: "how is alice?",
    });
    expect(await refusal(() => runHook(stdin, { vaultRoot: root }))).toContain(
      ".lorecards is a symbolic link",
    );
    expect(snapshot()).toEqual(before);
  });

  test("the gateway forwards the request untouched, says why once, and writes nothing there", async () => {
    const before = snapshot();
    const upstream = startFakeUpstream();
    const h = harness(root, upstream);
    try {
      const body = { model: "m", messages: [{ role: "user", content: "how is alice?" }] };
      const res = await h.send("/v1/chat/completions", body);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-lorecards-injected")).toBeNull();
      expect(upstream.received.at(-1)!.body).toBe(JSON.stringify(body));
      expect(h.warnings.join("\n")).toContain(".lorecards is a symbolic link");
    } finally {
      h.close();
      await upstream.close();
    }
    expect(snapshot()).toEqual(before);
  });
});
