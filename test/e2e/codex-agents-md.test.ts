/**
 * Codex 0.171.0 (pinned) live through the compiled gateway, in a folder whose AGENTS.md names a card
 * ("Always mention Vellmoor") and with a guide in the vault: `codex exec`, then `exec resume --last`.
 * Codex sends AGENTS.md and its `<environment_context>` as its own first user message, which is the
 * client talking and not a turn: the guide opens the person's first prompt and stays there, and
 * AGENTS.md fires nothing on any request. The same as the recorded session in
 * more-client-traffic.test.ts, with the client itself.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  appendOnlyBreaks,
  arrivals,
  movedBlocks,
  otherChanges,
  upstreamBody,
} from "../support/client-checks.ts";
import { type CliRun, CODEX, describeRun, runCodex } from "../support/client-cli.ts";
import type { Exchange } from "../support/client-replay.ts";
import { type ClientSession, startClientSession } from "../support/client-session.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";
import { prerequisite } from "../support/prerequisites.ts";

const GUIDE = "Keep notes of what lasts; the guide speaks.\n";
const AGENTS_MD = "Always mention Vellmoor, the harbour town.\n";
const SESSION_MS = 300_000;
const FAST_MS = 10_000;

const installed = prerequisite(
  fs.existsSync(CODEX),
  "codex-agents-md.test.ts",
  `${CODEX} is not installed (npm run test:clients)`,
);

type Item = Record<string, unknown>;
const inputOf = (body: Record<string, unknown> | null): Item[] =>
  Array.isArray(body?.input) ? (body.input as Item[]) : [];

describe.if(installed)("Codex 0.171.0 in a folder with an AGENTS.md, a guide in the vault", () => {
  let session: ClientSession | undefined;
  let runs: CliRun[] = [];
  let xs: Exchange[] = [];
  const s = (): ClientSession => {
    if (!session) throw new Error("the session did not start");
    return session;
  };

  beforeAll(async () => {
    session = await startClientSession(CLIENT_CARDS, { "guide.md": GUIDE });
    const cwd = session.dir();
    fs.writeFileSync(path.join(cwd, "AGENTS.md"), AGENTS_MD);
    const at = { home: session.dir(), cwd, baseUrl: `${session.url}/v1` };
    runs = [
      await runCodex(["exec", "--skip-git-repo-check", "Tell me about Zorblax please."], at),
      await runCodex(["exec", "--skip-git-repo-check", "resume", "--last", "And where is it?"], at),
    ];
    xs = await session.exchanges();
  }, SESSION_MS);
  afterAll(async () => {
    await session?.close();
  });

  test(
    "both runs exit 0 with the fake upstream's answer, and Codex sent its AGENTS.md",
    () => {
      expect(
        runs.map((r) => r.code),
        runs.map(describeRun).join("\n\n"),
      ).toEqual([0, 0]);
      // The fake counts user items, and the AGENTS.md message is one.
      expect(runs.map((r) => r.stdout.trim())).toEqual(["Noted, turn 2.", "Noted, turn 3."]);
      expect(xs.length, s().gatewayStderr()).toBe(2);
      for (const x of xs)
        expect(JSON.stringify(inputOf(x.sent.body)[2])).toContain("# AGENTS.md instructions for");
    },
    FAST_MS,
  );

  test(
    "the guide arrives once, in front of the person's first prompt, on every request; never in the AGENTS.md message",
    () => {
      for (const [i, x] of xs.entries()) {
        const input = inputOf(upstreamBody(x));
        const holding = input.flatMap((m, k) => (JSON.stringify(m).includes("the guide speaks") ? [k] : []));
        expect(holding, `#${i + 1}`).toEqual([3]);
        expect(JSON.stringify(input[3]).split("the guide speaks").length - 1, `#${i + 1}`).toBe(1);
        expect(JSON.stringify(input[2]), `#${i + 1}`).not.toContain(s().markers.open);
      }
      expect(xs.map((x) => x.injected)).toEqual(["guide.md,Zorblax", null]);
    },
    FAST_MS,
  );

  test(
    "AGENTS.md fires nothing: only Zorblax goes in, with the prompt that names it",
    () => {
      expect(arrivals(xs, s().markers), s().gatewayStderr()).toEqual([[1, 3, "Zorblax"]]);
      for (const x of xs) expect(x.upstream?.body ?? "").not.toContain("### Vellmoor");
    },
    FAST_MS,
  );

  test(
    "blocks stay in place, append-only, and nothing else the client sent changes",
    () => {
      expect(movedBlocks(xs, s().markers)).toEqual([]);
      expect(appendOnlyBreaks(xs)).toEqual([]);
      expect(otherChanges(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );
});
