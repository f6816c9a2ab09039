/**
 * The Anthropic cache breakpoint steward: after the gateway has put its blocks into a Messages body, it
 * marks the content parts that hold the blocks worth caching up to (the stable block first, then the
 * last replayed block) with a `cache_control`, so the provider keeps the prefix through them even when
 * what follows changes. It only ever adds: every `cache_control` the client set stays exactly as it was.
 * https://docs.claude.com/en/docs/build-with-claude/prompt-caching
 *
 * - At most 4 breakpoints per request, the top-level `cache_control` (automatic caching) using one of
 *   them ("Combining with block-level caching"); a client that uses all 4 gets none from us. Counting
 *   errs high: every `cache_control` inside a block counts, nested ones (in a `tool_result`) included.
 * - A cache write happens only at a breakpoint, and a read walks back at most 20 blocks from each
 *   breakpoint to find an earlier write ("How automatic prefix checking works"). A breakpoint on a
 *   block that never moves is found again by the next request at the same place, whatever the
 *   conversation added after it, which a client's breakpoint on its newest message is not once more
 *   than 20 blocks were added or an earlier message was reshaped. Breakpoints cost nothing themselves
 *   ("Understanding cache breakpoint costs"), so the only price is a slot the client left free.
 * - None where it cannot help: on a part that already has one, or before a client's breakpoint later
 *   in the same message (or the same `system`). A message's parts do not change between requests, so
 *   that later write is found wherever ours would be; the automatic breakpoint counts as one on the
 *   last block of the request.
 * - TTL: "Cache entries with longer TTL must appear before shorter TTLs" (tools → system → messages).
 *   Ours copies the TTL of the nearest breakpoint after it, else of the nearest before it, else none
 *   (5 minutes): between two neighbours in a valid order it keeps that order, it never asks for a
 *   1-hour cache (and its beta header) the client did not ask for, and next to the automatic
 *   breakpoint it agrees with it (a different TTL on the same block is a 400).
 * - No token counting against the minimum cacheable length (512 to 4,096 tokens by model): the prefix
 *   starts with tools and system we do not tokenize, and a shorter one is processed uncached without
 *   an error ("Cache limitations").
 *
 * A string `system` or string message content that receives a breakpoint becomes one text part, the
 * same model input (Claude Code itself sends a message both ways, see _chat.ts); nothing else changes
 * shape. A body this module does not understand comes back unchanged, and the input is never modified.
 */

import { isObject, type Json, type JsonObject } from "./_chat.ts";

/** "You can define up to 4 cache breakpoints" (explicit and automatic together). */
export const MAX_BREAKPOINTS = 4;

/** One block in prompt order: a tool, a `system` part, a message's content part (a string is one). */
interface Unit {
  group: "tools" | "system" | number;
  /** Index in its list of parts, or -1 for a string `system` or string content. */
  part: number;
  /** The text of a text part or string, null for anything else (or a part that cannot take a mark). */
  text: string | null;
  /** The `cache_control` values on the block or inside it, in order. */
  marks: Json[];
}

interface Added {
  group: "system" | number;
  part: number;
  mark: JsonObject;
}

/**
 * `body` with a `cache_control` on the part holding each of `wanted` (our blocks' exact texts, in
 * priority order) where it helps and a slot is free; `body` itself when nothing is added. With
 * `onlyIfClientCaches`, a body that sets no breakpoint of its own is left as it is (the gateway's
 * rule: caching is the client's choice), decided from the same one walk of the body.
 */
export function stewardBreakpoints(
  body: JsonObject,
  wanted: readonly string[],
  options: { onlyIfClientCaches?: boolean } = {},
): JsonObject {
  const units = unitsOf(body);
  if (units === null) return body;
  const used = units.reduce((n, u) => n + u.marks.length, 0);
  if (options.onlyIfClientCaches && used === 0) return body;
  let free = MAX_BREAKPOINTS - used;
  const added: Added[] = [];
  for (const text of wanted) {
    if (free <= 0) break;
    const at = holderOf(units, text);
    if (at === -1 || !helps(units, at)) continue;
    const unit = units[at]!;
    const mark = markFor(units, at);
    unit.marks.push(mark);
    added.push({ group: unit.group as Added["group"], part: unit.part, mark });
    free--;
  }
  return added.length === 0 ? body : withMarks(body, added);
}

/** How many breakpoints a body asks for (automatic caching included); null for a shape we do not read. */
export function countBreakpoints(body: unknown): number | null {
  const units = isObject(body) ? unitsOf(body) : null;
  return units === null ? null : units.reduce((n, u) => n + u.marks.length, 0);
}

/** The body's blocks in prompt order, or null when a field has a shape the Messages API does not have. */
function unitsOf(body: JsonObject): Unit[] | null {
  if (!isObject(body)) return null;
  const { tools, system, messages } = body;
  if (!Array.isArray(messages)) return null;
  if (tools !== undefined && !Array.isArray(tools)) return null;
  const units: Unit[] = (tools ?? []).map((tool, i) => ({
    group: "tools",
    part: i,
    text: null,
    marks: marksIn(tool),
  }));
  const fromSystem = contentUnits("system", system, true);
  if (fromSystem === null) return null;
  units.push(...fromSystem);
  for (const [m, msg] of messages.entries()) {
    if (!isObject(msg)) return null;
    // Only user and assistant content is documented to take a breakpoint (not `role: "system"`).
    const markable = msg.role === "user" || msg.role === "assistant";
    const fromMessage = contentUnits(m, msg.content, markable);
    if (fromMessage === null) return null;
    units.push(...fromMessage);
  }
  // Automatic caching puts its breakpoint on the last cacheable block.
  const auto = body.cache_control;
  if (auto !== undefined && auto !== null) {
    const last = units.at(-1);
    if (last === undefined) return null;
    last.marks.push(auto);
  }
  return units;
}

function contentUnits(group: Unit["group"], content: Json | undefined, markable: boolean): Unit[] | null {
  if (content === undefined || content === null) return [];
  if (typeof content === "string") return [{ group, part: -1, text: markable ? content : null, marks: [] }];
  if (!Array.isArray(content)) return null;
  return content.map((part, i) => ({
    group,
    part: i,
    text:
      markable && isObject(part) && part.type === "text" && typeof part.text === "string" ? part.text : null,
    marks: marksIn(part),
  }));
}

/**
 * Every `cache_control` in a block in prompt order (a block's own after those nested in it, since it
 * marks the end of the block), skipping what is the client's data rather than blocks (a tool's
 * `input_schema`, a `tool_use`'s `input`). A loop, not recursion: a body is untrusted.
 */
function marksIn(block: Json): Json[] {
  const marks: Json[] = [];
  const stack: ({ value: Json } | { mark: Json })[] = [{ value: block }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ("mark" in item) {
      marks.push(item.mark);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i]! });
    } else if (isObject(v)) {
      if (v.cache_control !== undefined && v.cache_control !== null) stack.push({ mark: v.cache_control });
      const keys = Object.keys(v).filter(
        (k) => k !== "cache_control" && k !== "input" && k !== "input_schema",
      );
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: v[keys[i]!]! });
    }
  }
  return marks;
}

/** The one markable block whose text holds `text`; -1 when none or several do. */
function holderOf(units: readonly Unit[], text: string): number {
  if (text === "") return -1;
  let found = -1;
  for (const [i, u] of units.entries()) {
    if (u.text === null || !u.text.includes(text)) continue;
    if (found !== -1) return -1;
    found = i;
  }
  return found;
}

function helps(units: readonly Unit[], at: number): boolean {
  const unit = units[at]!;
  if (unit.marks.length > 0) return false;
  for (let i = at + 1; i < units.length && units[i]!.group === unit.group; i++) {
    if (units[i]!.marks.length > 0) return false;
  }
  return true;
}

/** A mark with the TTL of the nearest breakpoint after `at`, else before it, else none. */
function markFor(units: readonly Unit[], at: number): JsonObject {
  const after = units.slice(at + 1).find((u) => u.marks.length > 0)?.marks[0];
  const before = units
    .slice(0, at)
    .findLast((u) => u.marks.length > 0)
    ?.marks.at(-1);
  const near = after ?? before;
  const ttl = isObject(near) ? near.ttl : undefined;
  return ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };
}

function withMarks(body: JsonObject, added: readonly Added[]): JsonObject {
  const out: JsonObject = { ...body };
  const forSystem = added.filter((a) => a.group === "system");
  if (forSystem.length > 0) out.system = marked(body.system as Json, forSystem);
  const messages = body.messages as Json[];
  out.messages = messages.map((msg, m) => {
    const here = added.filter((a) => a.group === m);
    if (here.length === 0) return msg;
    const message = msg as JsonObject;
    return { ...message, content: marked(message.content as Json, here) };
  });
  return out;
}

function marked(content: Json, added: readonly Added[]): Json {
  if (typeof content === "string") {
    return [{ type: "text", text: content, cache_control: added[0]!.mark }];
  }
  const parts = content as Json[];
  return parts.map((part, i) => {
    const mark = added.find((a) => a.part === i)?.mark;
    return mark === undefined ? part : { ...(part as JsonObject), cache_control: mark };
  });
}
