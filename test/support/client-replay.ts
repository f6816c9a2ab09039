/**
 * Replaying a recorded client session (shared/fixtures/real/clients/, see its README) through the
 * compiled gateway: a fresh vault with the given cards, `lorecards gateway --json` as a subprocess in
 * front of the client fake upstream, and every recorded request sent in order with its own method,
 * path, headers and body. Collects, per request, what the client sent, what the upstream received and
 * what came back to the client; the checks on them live in `client-checks.ts`.
 */

import fs from "node:fs";
import path from "node:path";
import type { Markers } from "../../src/inject/index.ts";
import { ensureBinary } from "./binary.ts";
import { type ClientUpstream, type Received, startClientUpstream } from "./client-upstream.ts";
import { startGatewayBinary } from "./gateway-binary.ts";
import { markersOf } from "./state.ts";
import { type CardFile, makeVault, removeDir, tempDir } from "./vault.ts";

export type Body = Record<string, unknown>;

/** One request as the README's file format records it. */
export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Body;
}

export interface Exchange {
  sent: Recorded;
  /** What the upstream received for this request (undefined if nothing reached it). */
  upstream: Received | undefined;
  /** The response as the client read it. */
  status: number;
  contentType: string | null;
  injected: string | null;
  text: string;
}

export interface Replay {
  exchanges: Exchange[];
  markers: Markers;
  /** What the gateway wrote to stderr (fail-open warnings explain an uninjected request). */
  stderr(): string;
  close(): Promise<void>;
}

// The README: these were dropped from the recordings; fetch sets its own host and content-length.
const DROPPED_HEADERS = [
  "authorization",
  "x-api-key",
  "host",
  "content-length",
  "connection",
  "accept-encoding",
];

/** The session's requests in the order the client sent them (`001.json`, `002.json`, …). */
export function loadSession(dir: string): Recorded[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d+\.json$/.test(name))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as Recorded);
}

export async function replaySession(
  requests: readonly Recorded[],
  cards: readonly CardFile[],
  /** Other files of the vault, by path inside it (`guide.md`). */
  files: Record<string, string> = {},
): Promise<Replay> {
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  const vault = makeVault(cards);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(vault, name), text);
  const home = tempDir();
  const upstream = startClientUpstream();
  const gateway = await startGatewayBinary(bin, vault, upstream.url, home);
  try {
    const exchanges: Exchange[] = [];
    for (const sent of requests) exchanges.push(await send(gateway.url, sent, upstream));
    return {
      exchanges,
      markers: await markersOf(vault),
      stderr: gateway.stderr,
      close: async () => {
        await gateway.stop();
        await upstream.close();
        removeDir(vault);
        removeDir(home);
      },
    };
  } catch (err) {
    await gateway.stop();
    await upstream.close();
    removeDir(vault);
    removeDir(home);
    throw err;
  }
}

async function send(base: string, sent: Recorded, upstream: ClientUpstream): Promise<Exchange> {
  const before = upstream.received.length;
  const headers = new Headers();
  for (const [name, value] of Object.entries(sent.headers))
    if (!DROPPED_HEADERS.includes(name.toLowerCase())) headers.set(name, value);
  const res = await fetch(base + sent.path, {
    method: sent.method,
    headers,
    body: JSON.stringify(sent.body),
    decompress: false,
  } as RequestInit);
  const text = await res.text();
  return {
    sent,
    upstream: upstream.received.length === before + 1 ? upstream.received[before] : undefined,
    status: res.status,
    contentType: res.headers.get("content-type"),
    injected: res.headers.get("x-lorecards-injected"),
    text,
  };
}
