/**
 * The replay guarantee, checked on a replayed session (see shared/fixtures/real/clients/README.md,
 * "What a replay test should assert"). Each check compares what the upstream received with what the
 * client sent, in the canonical form of `canonical.ts`, and returns a list of readable problems
 * (empty when the guarantee holds) rather than throwing, so a failing test names every break at once.
 * Requests are numbered from 1, as the fixture files are.
 */

import type { Markers } from "../../src/inject/index.ts";
import { blocksIn, countCacheHints, withoutBlocks } from "./canonical.ts";
import type { Body, Exchange } from "./client-replay.ts";
import { type CanonicalBody, canonicalOf } from "./protocols.ts";

/** Where a block sits: the system prompt or the index of a message (Responses input item). */
export type Location = "system" | number;

/** One card that arrived: request number, where, and its title. */
export type Arrival = [request: number, at: Location, card: string];

const same = (a: unknown, b: unknown) => Bun.deepEquals(a, b, true);
const short = (v: unknown) => {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
};

export function originalOf(x: Exchange): CanonicalBody {
  return canonicalOf(x.sent.path, x.sent.body);
}

/** What the upstream received, canonically (an empty body when nothing or no JSON arrived). */
export function upstreamOf(x: Exchange): CanonicalBody {
  return canonicalOf(x.sent.path, upstreamBody(x) ?? {});
}

export function upstreamBody(x: Exchange): Body | null {
  try {
    return x.upstream ? (JSON.parse(x.upstream.body) as Body) : null;
  } catch {
    return null;
  }
}

/** Card titles in a text: each card renders as a `### Title [kind]` heading. */
export function cardsIn(text: string): string[] {
  return [...text.matchAll(/^### (.+) \[[^\]\n]+\]$/gm)].map((m) => m[1] ?? "");
}

export function blocksAt(body: CanonicalBody, markers: Markers): Map<Location, string[]> {
  const out = new Map<Location, string[]>();
  const system = blocksIn(body.system, markers);
  if (system.length > 0) out.set("system", system);
  body.items.forEach((item, i) => {
    const found = blocksIn(item, markers);
    if (found.length > 0) out.set(i, found);
  });
  return out;
}

const partOf = (body: CanonicalBody, at: Location) => (at === "system" ? body.system : body.items[at]);

/** True when the client sent the same system prompt / message at `at` in both requests. */
const clientKept = (a: CanonicalBody, b: CanonicalBody, at: Location) =>
  (at === "system" || at < b.items.length) && same(partOf(a, at), partOf(b, at));

/**
 * Append-only: between consecutive requests, whatever the client kept (system prompt, tools, each
 * message at its position) must reach the upstream unchanged too. What the client itself changed
 * (Claude Code's `--continue`, its merged tool loop) is not compared.
 */
export function appendOnlyBreaks(xs: readonly Exchange[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i + 1 < xs.length; i++) {
    const [o1, o2] = [originalOf(xs[i] as Exchange), originalOf(xs[i + 1] as Exchange)];
    const [u1, u2] = [upstreamOf(xs[i] as Exchange), upstreamOf(xs[i + 1] as Exchange)];
    const pair = `#${i + 1}→#${i + 2}`;
    if (same(o1.tools, o2.tools) && !same(u1.tools, u2.tools))
      problems.push(`${pair}: tools changed upstream`);
    const places: Location[] = ["system", ...o1.items.keys()];
    for (const at of places) {
      if (clientKept(o1, o2, at) && !same(partOf(u1, at), partOf(u2, at)))
        problems.push(`${pair}: ${label(at)} was ${short(partOf(u1, at))}, then ${short(partOf(u2, at))}`);
    }
  }
  return problems;
}

/** Every block stays where it went in, byte for byte, on every later request that keeps its message. */
export function movedBlocks(xs: readonly Exchange[], markers: Markers): string[] {
  const problems: string[] = [];
  xs.forEach((x, i) => {
    for (const [at, blocks] of blocksAt(upstreamOf(x), markers)) {
      for (let k = i + 1; k < xs.length; k++) {
        const later = xs[k] as Exchange;
        if (!clientKept(originalOf(x), originalOf(later), at)) continue;
        const there = blocksAt(upstreamOf(later), markers).get(at) ?? [];
        for (const block of blocks)
          if (!there.includes(block))
            problems.push(
              `the block of ${cardsIn(block).join(", ")} in ${label(at)} at #${i + 1} is gone at #${k + 1}`,
            );
      }
    }
  });
  return problems;
}

/** The cards each request brought: blocks that were not at the same place on the request before. */
export function arrivals(xs: readonly Exchange[], markers: Markers): Arrival[] {
  const out: Arrival[] = [];
  let before = new Map<Location, string[]>();
  xs.forEach((x, i) => {
    const now = blocksAt(upstreamOf(x), markers);
    for (const [at, blocks] of now) {
      for (const block of blocks)
        if (!(before.get(at) ?? []).includes(block))
          for (const card of cardsIn(block)) out.push([i + 1, at, card]);
    }
    before = now;
  });
  return out;
}

/** Cards that arrived twice in the session, and requests that carry one card twice. */
export function duplicateCards(xs: readonly Exchange[], markers: Markers): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const [request, , card] of arrivals(xs, markers)) {
    const first = seen.get(card);
    if (first !== undefined) problems.push(`${card} went in at #${first} and again at #${request}`);
    else seen.set(card, request);
  }
  xs.forEach((x, i) => {
    const cards = blocksIn(upstreamOf(x), markers).flatMap(cardsIn);
    const twice = cards.filter((c, j) => cards.indexOf(c) !== j);
    if (twice.length > 0) problems.push(`#${i + 1} carries ${[...new Set(twice)].join(", ")} more than once`);
  });
  return problems;
}

// Only these top-level fields are ours to touch: the ones that hold the conversation.
const CONVERSATION_FIELDS = ["messages", "input", "system", "instructions", "contents", "systemInstruction"];

/** Apart from our blocks, the upstream got exactly what the client sent. */
export function otherChanges(xs: readonly Exchange[], markers: Markers): string[] {
  return xs.flatMap((x, i) => changesIn(x, markers).map((p) => `#${i + 1}: ${p}`));
}

function changesIn(x: Exchange, markers: Markers): string[] {
  const body = upstreamBody(x);
  if (!body) return ["the upstream got no JSON body"];
  const problems: string[] = [];
  const stripped = withoutBlocks(upstreamOf(x), markers);
  const original = originalOf(x);
  if (!same(stripped.system, original.system)) problems.push(`system ${short(stripped.system)}`);
  if (!same(stripped.tools, original.tools)) problems.push("tools differ");
  if (stripped.items.length !== original.items.length)
    problems.push(`${stripped.items.length} messages upstream, ${original.items.length} sent`);
  original.items.forEach((item, j) => {
    if (!same(stripped.items[j], item))
      problems.push(`${label(j)} sent ${short(item)}, upstream ${short(stripped.items[j])}`);
  });
  // The client's cache hints all arrive; the gateway may add its own (Anthropic's breakpoint steward),
  // only on a part holding a block of ours, and never past the API's 4.
  const [hintsUp, hintsSent] = [countCacheHints(body), countCacheHints(x.sent.body)];
  const added = hintsUp - hintsSent;
  if (added < 0 || added > hintsOnOurBlocks(body, markers) || hintsUp > Math.max(4, hintsSent))
    problems.push(`${hintsUp} cache_control hints upstream, ${hintsSent} sent`);
  for (const key of new Set([...Object.keys(body), ...Object.keys(x.sent.body)]))
    if (
      !CONVERSATION_FIELDS.includes(key) &&
      !same(body[key], x.sent.body[key]) &&
      !ourCacheKey(key, body, x)
    )
      problems.push(`field ${key} sent ${short(x.sent.body[key])}, upstream ${short(body[key])}`);
  return problems;
}

/** Cache hints on a text part (or a system part) that holds a block of ours. */
function hintsOnOurBlocks(body: Record<string, unknown>, markers: Markers): number {
  const parts: unknown[] = [];
  if (Array.isArray(body.system)) parts.push(...body.system);
  for (const m of Array.isArray(body.messages) ? body.messages : [])
    if (Array.isArray(m?.content)) parts.push(...m.content);
  return parts.filter(
    (p) =>
      typeof p === "object" &&
      p !== null &&
      "cache_control" in p &&
      String((p as { text?: unknown }).text ?? "").includes(markers.open),
  ).length;
}

/** The one field the gateway adds: its conversation's `prompt_cache_key`, when the client set none. */
function ourCacheKey(key: string, upstream: Record<string, unknown>, x: Exchange): boolean {
  return (
    key === "prompt_cache_key" &&
    x.sent.body[key] === undefined &&
    /^lorecards-[0-9a-f]{32}$/.test(String(upstream[key]))
  );
}

/** Anthropic requires a user message's `tool_result` blocks to come before anything else in it. */
export function misplacedToolResults(xs: readonly Exchange[]): string[] {
  const problems: string[] = [];
  xs.forEach((x, i) => {
    const messages = upstreamBody(x)?.messages;
    if (!Array.isArray(messages)) return;
    messages.forEach((m: { content?: unknown }, j) => {
      if (!Array.isArray(m.content)) return;
      const types = m.content.map((p: { type?: unknown }) => p.type);
      const last = types.lastIndexOf("tool_result");
      if (last !== -1 && types.slice(0, last).some((t) => t !== "tool_result"))
        problems.push(`#${i + 1}: ${label(j)} has ${types.join(", ")}`);
    });
  });
  return problems;
}

function label(at: Location): string {
  return at === "system" ? "the system prompt" : `message ${at}`;
}
