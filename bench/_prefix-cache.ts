/**
 * The truth of the caching benchmark: what a provider's prefix cache would report for a request, given
 * the requests before it. A prompt becomes tokens in the order the model reads it (tools, system, then
 * every message's content, a role token opening each message), counted with gpt-tokenizer (o200k_base).
 * Two caches, after the providers' documentation:
 *
 * - **OpenAI, automatic** (platform.openai.com/docs/guides/prompt-caching): every request's prefix is
 *   cached; a request reads the longest common prefix it shares with any earlier request.
 *   `usage.prompt_tokens` is the whole prompt, `prompt_tokens_details.cached_tokens` the part read.
 * - **Anthropic, breakpoints** (docs.claude.com/en/docs/build-with-claude/prompt-caching): only a
 *   prefix ending at a block that carries `cache_control` is written. A breakpoint reads the longest
 *   prefix already written that ends at its own block or at one of the 20 blocks before it (the
 *   lookback); a hit refreshes the entry's TTL (5 minutes, or 1 hour for `ttl: "1h"`). Tokens from the
 *   read to the last breakpoint are written; `input_tokens` is what follows the last breakpoint, so
 *   `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` is the whole prompt. More
 *   than 4 breakpoints, or a 1-hour one after a 5-minute one, is refused as the API refuses it.
 *
 * What is simplified is listed in bench/README.md ("Caching"). Pure apart from the clock passed in.
 */

import { encode } from "gpt-tokenizer/encoding/o200k_base";

export type Ttl = "5m" | "1h";

/** A unit of the prompt: a tool, a system text block, a message's content block. */
export interface Block {
  tokens: number[];
  /** A `cache_control` on this block (Anthropic): the prefix ending here may be written and read. */
  breakpoint?: Ttl;
}

export interface Prompt {
  blocks: Block[];
  /** Parts the fake could not turn into tokens (an image, an unknown shape): the benchmark fails. */
  unreadable: string[];
  /** Why the real API would answer 400, or null. */
  refused: string | null;
}

export interface CacheUsage {
  /** Every input token of the prompt. */
  input: number;
  read: number;
  written: { "5m": number; "1h": number };
  /** Neither read nor written: `input − read − written`. */
  uncached: number;
}

/** Tokens that no text encodes to: the start of a message of each role, and of the tools and system. */
const ROLE_TOKENS: Record<string, number> = {
  system: -1,
  developer: -2,
  user: -3,
  assistant: -4,
  tool: -5,
};
const TOOLS_TOKEN = -10;
/** Text that looks like a special token is counted as the plain text it is, as recall/tokens.ts does. */
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };
const MAX_BREAKPOINTS = 4;
const LOOKBACK_BLOCKS = 20;
const TTL_MS: Record<Ttl, number> = { "5m": 5 * 60_000, "1h": 60 * 60_000 };

export function countTokens(text: string): number {
  return encode(text, ENCODE_OPTIONS).length;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An OpenAI chat completions body: tools, then each message (system messages included) in order. */
export function openaiPrompt(body: unknown): Prompt {
  const prompt = emptyPrompt();
  if (!isObj(body) || !Array.isArray(body.messages)) return unreadable(prompt, "no messages array");
  addTools(prompt, body.tools);
  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m) || typeof m.role !== "string" || !Object.hasOwn(ROLE_TOKENS, m.role)) {
      prompt.unreadable.push(`message ${i} has no known role`);
      continue;
    }
    const tokens = [ROLE_TOKENS[m.role]!];
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    if (!Array.isArray(parts)) {
      prompt.unreadable.push(`message ${i}: content is no list`);
      continue;
    }
    for (const part of parts) {
      const text = isObj(part) && part.type === "text" && typeof part.text === "string" ? part.text : null;
      if (text === null) prompt.unreadable.push(`message ${i}: a ${describe(part)} part`);
      else tokens.push(...encode(text, ENCODE_OPTIONS));
    }
    if (m.tool_calls !== undefined) tokens.push(...encode(JSON.stringify(m.tool_calls), ENCODE_OPTIONS));
    prompt.blocks.push({ tokens });
  }
  return prompt;
}

/** An Anthropic Messages body: tools, system, messages; every content block is a block of its own. */
export function anthropicPrompt(body: unknown): Prompt {
  const prompt = emptyPrompt();
  if (!isObj(body) || !Array.isArray(body.messages)) return unreadable(prompt, "no messages array");
  addTools(prompt, body.tools);
  if (body.system !== undefined) addContent(prompt, "system", body.system, "system");
  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m) || typeof m.role !== "string" || !Object.hasOwn(ROLE_TOKENS, m.role)) {
      prompt.unreadable.push(`message ${i} has no known role`);
    } else addContent(prompt, m.role, m.content, `message ${i}`);
  }
  // Automatic caching: a top-level cache_control marks the last block.
  const top = cacheControl(prompt, body.cache_control, "the request");
  const last = prompt.blocks.at(-1);
  if (top && last && !last.breakpoint) last.breakpoint = top;
  checkBreakpoints(prompt);
  return prompt;
}

function emptyPrompt(): Prompt {
  return { blocks: [], unreadable: [], refused: null };
}

function unreadable(prompt: Prompt, why: string): Prompt {
  prompt.unreadable.push(why);
  return prompt;
}

function describe(part: unknown): string {
  return isObj(part) && typeof part.type === "string" ? `"${part.type}"` : typeof part;
}

function addTools(prompt: Prompt, tools: unknown): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) return void prompt.unreadable.push("tools is no list");
  for (const [i, tool] of tools.entries()) {
    if (!isObj(tool)) {
      prompt.unreadable.push(`tool ${i} is no object`);
      continue;
    }
    const { cache_control, ...definition } = tool;
    const head = i === 0 ? [TOOLS_TOKEN] : [];
    prompt.blocks.push({
      tokens: [...head, ...encode(JSON.stringify(definition), ENCODE_OPTIONS)],
      breakpoint: cacheControl(prompt, cache_control, `tool ${i}`),
    });
  }
}

/** A system prompt or a message's content: a string (one block) or a list of content blocks. */
function addContent(prompt: Prompt, role: string, content: unknown, where: string): void {
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
  if (!Array.isArray(blocks)) return void prompt.unreadable.push(`${where}: content is no list`);
  const first = prompt.blocks.length;
  for (const [i, block] of blocks.entries()) {
    const text = isObj(block) ? blockText(block) : null;
    if (text === null) {
      prompt.unreadable.push(`${where}: a ${describe(block)} block`);
      continue;
    }
    const breakpoint = cacheControl(prompt, (block as Obj).cache_control, `${where} block ${i}`);
    prompt.blocks.push({ tokens: encode(text, ENCODE_OPTIONS), breakpoint });
  }
  // The role token opens the message's first block (a message with no blocks is that token alone).
  if (prompt.blocks.length === first) prompt.blocks.push({ tokens: [] });
  prompt.blocks[first]!.tokens.unshift(ROLE_TOKENS[role]!);
}

/** What a content block puts before the model, or null for a kind the fake cannot count. */
function blockText(block: Obj): string | null {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : null;
    case "thinking":
      return typeof block.thinking === "string" ? block.thinking : null;
    case "tool_use":
      return JSON.stringify({ name: block.name, input: block.input });
    case "tool_result": {
      if (typeof block.content === "string") return block.content;
      if (!Array.isArray(block.content)) return block.content === undefined ? "" : null;
      const texts = block.content.map((c) => (isObj(c) && c.type === "text" ? c.text : null));
      return texts.every((t) => typeof t === "string") ? texts.join("\n") : null;
    }
    default:
      return null;
  }
}

function cacheControl(prompt: Prompt, value: unknown, where: string): Ttl | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObj(value) || value.type !== "ephemeral") {
    prompt.refused ??= `${where}: cache_control must be {"type":"ephemeral"}`;
    return undefined;
  }
  if (value.ttl === undefined || value.ttl === "5m" || value.ttl === "1h") return (value.ttl as Ttl) ?? "5m";
  prompt.refused ??= `${where}: cache_control.ttl must be "5m" or "1h"`;
  return undefined;
}

function checkBreakpoints(prompt: Prompt): void {
  const ttls = prompt.blocks.flatMap((b) => (b.breakpoint ? [b.breakpoint] : []));
  if (ttls.length > MAX_BREAKPOINTS) {
    prompt.refused ??= `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${ttls.length}.`;
  }
  const short = ttls.indexOf("5m");
  if (short !== -1 && ttls.indexOf("1h", short) !== -1) {
    prompt.refused ??= 'a cache_control with ttl "1h" may not follow one with ttl "5m"';
  }
}

function flatten(prompt: Prompt): { tokens: Int32Array; ends: number[] } {
  const ends: number[] = [];
  let n = 0;
  for (const b of prompt.blocks) {
    n += b.tokens.length;
    ends.push(n);
  }
  const tokens = new Int32Array(n);
  prompt.blocks.forEach((b, i) => {
    tokens.set(b.tokens, ends[i]! - b.tokens.length);
  });
  return { tokens, ends };
}

/** OpenAI's automatic prefix cache: the longest common prefix with any earlier request. */
export function automaticCache(): { use(prompt: Prompt): CacheUsage } {
  const seen: Int32Array[] = [];
  return {
    use(prompt) {
      const { tokens } = flatten(prompt);
      let read = 0;
      for (const earlier of seen) {
        const limit = Math.min(earlier.length, tokens.length);
        let n = 0;
        while (n < limit && earlier[n] === tokens[n]) n++;
        if (n > read) read = n;
      }
      seen.push(tokens);
      return { input: tokens.length, read, written: { "5m": 0, "1h": 0 }, uncached: tokens.length - read };
    },
  };
}

/** Anthropic's cache: prefixes written at breakpoints, read with the lookback, kept for their TTL. */
export function breakpointCache(now: () => number = Date.now): { use(prompt: Prompt): CacheUsage } {
  /** Prefix key (its length and a hash of its tokens) → the entry's TTL and when it expires. */
  const entries = new Map<string, { ttl: Ttl; expires: number }>();
  return {
    use(prompt) {
      const at = now();
      const { tokens, ends } = flatten(prompt);
      const key = (i: number) => `${ends[i]}:${Bun.hash(tokens.subarray(0, ends[i]))}`;
      const live = (k: string) => (entries.get(k)?.expires ?? 0) > at;
      const marks = prompt.blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
      let read = 0;
      let readKey: string | undefined;
      for (const p of marks) {
        for (let i = p; i >= Math.max(0, p - LOOKBACK_BLOCKS) && ends[i]! > read; i--) {
          if (!live(key(i))) continue;
          read = ends[i]!;
          readKey = key(i);
          break;
        }
      }
      if (readKey) {
        const entry = entries.get(readKey)!;
        entry.expires = at + TTL_MS[entry.ttl];
      }
      const written = { "5m": 0, "1h": 0 };
      let from = read;
      for (const p of marks) {
        const ttl = prompt.blocks[p]!.breakpoint!;
        if (ends[p]! > from) {
          written[ttl] += ends[p]! - from;
          from = ends[p]!;
        }
        entries.set(key(p), { ttl, expires: at + TTL_MS[ttl] });
      }
      const input = tokens.length;
      return { input, read, written, uncached: input - Math.max(read, from) };
    },
  };
}
