/**
 * The chain a real client talks through in the end-to-end tests: client → recorder (what the client
 * really sent) → `lorecards gateway` (the compiled binary, `--json`) → the client fake upstream (what
 * the upstream received), with a fresh vault of the given cards. Afterwards the chat requests on both
 * sides are paired, in order, into the `Exchange`s the replay checks of `client-checks.ts` read, so a
 * live session is held to the same guarantees as a replayed recording.
 */

import fs from "node:fs";
import path from "node:path";
import type { Markers } from "../../src/inject/index.ts";
import { ensureBinary } from "./binary.ts";
import type { Body, Exchange } from "./client-replay.ts";
import { type ClientUpstream, type Received, startClientUpstream } from "./client-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "./gateway-binary.ts";
import { type Recorder, type Recording, startRecorder } from "./recorder.ts";
import { markersOf } from "./state.ts";
import { type CardFile, makeVault, removeDir, tempDir } from "./vault.ts";

export interface ClientSession {
  vault: string;
  upstream: ClientUpstream;
  /** The origin clients talk to (the recorder in front of the gateway). */
  url: string;
  recorder: Recorder;
  markers: Markers;
  /** A fresh directory, removed on close (a client's HOME or working directory). */
  dir(): string;
  /** Chat requests as the client sent them, each with what the upstream got for it. */
  exchanges(): Promise<Exchange[]>;
  /** Everything else the client sent (probes, token counts), and what reached the upstream. */
  others(): { sent: Recording[]; upstream: Received[] };
  gatewayStderr(): string;
  close(): Promise<void>;
}

/**
 * A chat call: Anthropic Messages, OpenAI Chat Completions or Responses (not `…/count_tokens`), the
 * Gemini API, Ollama's `/api/chat`, or a text completion (`/v1/completions`, KoboldAI's generate).
 */
export function isChat(method: string, path: string): boolean {
  return (
    method === "POST" &&
    /(\/(messages|chat\/completions|responses|api\/chat|v1\/completions|api\/v1\/generate)|:(generateContent|streamGenerateContent))(\?|$)/.test(
      path,
    )
  );
}

export async function startClientSession(
  cards: readonly CardFile[],
  /** Other files of the vault, by path inside it (`guide.md`). */
  files: Record<string, string> = {},
): Promise<ClientSession> {
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  const vault = makeVault(cards);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(vault, name), text);
  const dirs = [tempDir()];
  const upstream = startClientUpstream();
  let gateway: GatewayProcess;
  try {
    gateway = await startGatewayBinary(bin, vault, upstream.url, dirs[0] as string);
  } catch (err) {
    await upstream.close();
    for (const d of [vault, ...dirs]) removeDir(d);
    throw err;
  }
  const recorder = startRecorder(gateway.url);
  return {
    vault,
    upstream,
    url: recorder.url,
    recorder,
    markers: await markersOf(vault),
    dir: () => {
      const d = tempDir();
      dirs.push(d);
      return fs.realpathSync(d);
    },
    exchanges: async () => {
      await recorder.settled();
      return pairChats(recorder.received, upstream.received);
    },
    others: () => ({
      sent: recorder.received.filter((r) => !isChat(r.method, r.path)),
      upstream: upstream.received.filter((r) => !isChat(r.method, r.path)),
    }),
    gatewayStderr: gateway.stderr,
    close: async () => {
      await recorder.close();
      await gateway.stop();
      await upstream.close();
      for (const d of [vault, ...dirs]) removeDir(d);
    },
  };
}

/**
 * The n-th chat request the client sent goes with the n-th one the upstream received: the clients
 * here send one chat request at a time, and the gateway forwards each exactly once.
 */
export function pairChats(sent: readonly Recording[], received: readonly Received[]): Exchange[] {
  const upstream = received.filter((r) => isChat(r.method, r.path));
  return sent
    .filter((r) => isChat(r.method, r.path))
    .map((r, i) => ({
      sent: { method: r.method, path: r.path, headers: r.headers, body: JSON.parse(r.body) as Body },
      upstream: upstream[i],
      status: r.status,
      contentType: r.responseHeaders["content-type"] ?? null,
      injected: r.responseHeaders["x-lorecards-injected"] ?? null,
      text: r.answer,
    }));
}
