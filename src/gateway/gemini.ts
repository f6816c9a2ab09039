/**
 * The Gemini API (`POST /v1beta/models/MODEL:generateContent`, `…:streamGenerateContent`, with
 * `?alt=sse` for an event stream; `/v1/…` too), which Gemini CLI (`GOOGLE_GEMINI_BASE_URL`) and
 * Google's SDK (`@google/genai`, `httpOptions.baseUrl`) speak. The system prompt is
 * `systemInstruction` (a Content, or a string); `contents` are the messages, role `user` or `model`,
 * each a list of parts: `text`, and parts that are never read or changed (`functionCall`,
 * `functionResponse`, `inlineData`, `fileData`, thought parts). A user content made only of
 * `functionResponse` parts is a tool's answer, as Anthropic's tool results are: not a turn, no cards.
 * `--inject user` puts the block in front of the user content's first text (after leading function
 * responses); `--inject system` adds it to `systemInstruction`, unless the request uses a
 * `cachedContent`, which holds the system instruction and may not be sent beside one: then it goes in
 * front of the first user text instead. A card placed as a message is a content of its own (`user`,
 * or `model` for an assistant card that does not end the request).
 * Usage: `usageMetadata` {promptTokenCount (cached included), cachedContentTokenCount,
 * toolUsePromptTokenCount, candidatesTokenCount, thoughtsTokenCount (billed as output)}; streamed,
 * in every chunk as running totals (the last wins), or in each element of a JSON array without `alt=sse`.
 * https://ai.google.dev/api/generate-content
 */

import type { Usage } from "../state/index.ts";
import {
  byAnchor,
  type ChatMessage,
  defineAdapter,
  type Edit,
  GAP,
  isObject,
  type Json,
  type JsonObject,
  makeView,
} from "./_chat.ts";
import { tokens } from "./_usage.ts";

const PATH = /^\/(v1|v1beta|v1alpha)\/(models|tunedModels)\/[^/:]+:(generateContent|streamGenerateContent)$/;

export const geminiAdapter = defineAdapter({
  name: "gemini",
  paths: ["/v1beta/models/MODEL:generateContent"],
  matches: (pathname) => PATH.test(pathname),
  systemPlace: "system",
  read(body) {
    if (!isObject(body) || !Array.isArray(body.contents)) return null;
    const system = systemText(body.systemInstruction);
    if (system === null) return null;
    const raw: JsonObject[] = [];
    const messages: ChatMessage[] = [];
    for (const c of body.contents) {
      if (!isObject(c)) return null;
      const parts = c.parts ?? [];
      if (!Array.isArray(parts) || !parts.every(isObject)) return null;
      const role = c.role === "model" ? "assistant" : "user";
      const texts = parts.flatMap((p) => (isText(p) ? [p.text] : []));
      // Hashed as the other protocols are: text parts as `text` parts, the rest as they are.
      raw.push({ role, content: parts.map((p) => (isText(p) ? { ...p, type: "text" } : p)) });
      messages.push({
        role: role === "user" && onlyFunctionResponses(parts) ? "tool" : role,
        text: texts.join("\n"),
      });
    }
    return makeView(system, raw, messages);
  },
  apply(body, edits) {
    const cached = typeof body.cachedContent === "string" && body.cachedContent !== "";
    const toSystem = edits.filter((e) => e.place === "system" || e.place === "system_start");
    const contents = applyToContents(body.contents as Json[], edits, cached);
    if (toSystem.length === 0 || cached) return { ...body, contents };
    return { ...body, systemInstruction: withSystem(body.systemInstruction, toSystem), contents };
  },
  usage: { paths: ["usageMetadata", "[].usageMetadata"], read: usageOf },
});

type TextPart = JsonObject & { text: string };

/** A text part the model reads (a thought summary is the model's own, not the conversation's). */
function isText(part: JsonObject): part is TextPart {
  return typeof part.text === "string" && part.thought !== true;
}

function onlyFunctionResponses(parts: JsonObject[]): boolean {
  return parts.length > 0 && parts.every((p) => p.functionResponse !== undefined);
}

/** `systemInstruction` as text: a Content's text parts, a string, or none; null for another shape. */
function systemText(value: Json | undefined): string | null {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (!isObject(value)) return null;
  const parts = value.parts ?? [];
  if (!Array.isArray(parts)) return null;
  return parts.flatMap((p) => (isObject(p) && isText(p) ? [p.text] : [])).join("\n");
}

/** The system instruction with blocks in front of it and after it, in its own form. */
function withSystem(value: Json | undefined, edits: readonly Edit[]): Json {
  const of = (place: Edit["place"]) => edits.filter((e) => e.place === place).map((e) => e.text);
  const [start, end] = [of("system_start"), of("system")];
  if (typeof value === "string") return [...start, value, ...end].join(GAP);
  const content = isObject(value) ? value : {};
  const parts = Array.isArray(content.parts) ? content.parts : [];
  const texts = (list: string[]) => list.map((text): JsonObject => ({ text }));
  return { ...content, parts: [...texts(start), ...parts, ...texts(end)] };
}

/**
 * Edits applied to `contents`: a prefix joins the content's first text at or after its leading
 * function responses (a new text part there when it has none), a message becomes a content of its
 * own. With a cached content, system edits go in front of the first user content instead.
 */
function applyToContents(contents: readonly Json[], edits: readonly Edit[], cached: boolean): Json[] {
  const first = contents.findIndex((c) => isObject(c) && c.role !== "model");
  const moved = cached
    ? edits.map((e) =>
        e.place === "system" || e.place === "system_start"
          ? { ...e, anchor: first, place: "prefix" as const }
          : e,
      )
    : edits.filter((e) => e.place !== "system" && e.place !== "system_start");
  const grouped = byAnchor(moved);
  const out: Json[] = [];
  contents.forEach((item, i) => {
    const here = grouped.get(i) ?? [];
    let content = item as JsonObject;
    for (const e of here.filter((e) => e.place === "prefix").reverse()) content = prefixed(content, e.text);
    for (const e of here) if (e.place === "before") out.push(contentOf(e));
    out.push(content);
    for (const e of here) if (e.place === "after") out.push(contentOf(e));
  });
  return out;
}

function prefixed(content: JsonObject, block: string): JsonObject {
  const parts = Array.isArray(content.parts) ? (content.parts as JsonObject[]) : [];
  let at = 0;
  while (at < parts.length && parts[at]!.functionResponse !== undefined) at++;
  const i = parts.findIndex((p, n) => n >= at && isText(p));
  const next =
    i === -1
      ? [...parts.slice(0, at), { text: block }, ...parts.slice(at)]
      : parts.map((p, n) => (n === i ? { ...p, text: block + GAP + (p as TextPart).text } : p));
  return { ...content, parts: next };
}

/** A card as a content of its own: the model's only for an assistant card that does not end the request. */
function contentOf(e: Edit): JsonObject {
  const role = e.role === "assistant" && e.place !== "after" ? "model" : "user";
  return { role, parts: [{ text: e.text }] };
}

/** Gemini's usage: the cached tokens are part of the prompt count; thoughts are billed as output. */
function usageOf(u: Record<string, unknown>): Usage | null {
  if (typeof u.promptTokenCount !== "number") return null;
  const input = tokens(u.promptTokenCount) + tokens(u.toolUsePromptTokenCount);
  const cached = Math.min(tokens(u.cachedContentTokenCount), input);
  return {
    uncached: input - cached,
    cacheRead: cached,
    cacheWrite: 0,
    output: tokens(u.candidatesTokenCount) + tokens(u.thoughtsTokenCount),
  };
}
