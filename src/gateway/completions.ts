/**
 * Text completion, where the whole prompt is one string: OpenAI's legacy `POST /v1/completions` (which
 * llama.cpp, KoboldCpp, vLLM, text-generation-webui and TabbyAPI serve, and SillyTavern's Text
 * Completion mode calls) and KoboldAI's `POST /api/v1/generate` (and KoboldCpp's streaming
 * `/api/extra/generate/stream`), both with a string `prompt`. Cards go in only where the place is
 * certain (_templates.ts): into the turns of a known chat template, read as messages like any other
 * protocol's (the block in front of the newest user turn's text; a card placed as a message is a
 * turn of the template's own), or at the `<lorecards/>` marker the client put in its prompt, which
 * the block replaces. Any other prompt passes through untouched, with one notice on stderr.
 * Usage: `usage` {prompt_tokens, completion_tokens} as in Chat Completions; KoboldAI's API reports none.
 */

import {
  type ChatMessage,
  type ChatView,
  defineAdapter,
  type Edit,
  GAP,
  isObject,
  type JsonObject,
  makeView,
} from "./_chat.ts";
import { PLACE_MARKER, type Segment, type Template, templateOf } from "./_templates.ts";
import { cachedPartOfInput } from "./_usage.ts";

export const completionsAdapter = defineAdapter({
  name: "completions",
  paths: ["/v1/completions", "/completions", "/api/v1/generate", "/api/extra/generate/stream"],
  systemPlace: "prefix",
  read(body) {
    if (!isObject(body) || typeof body.prompt !== "string") return null;
    const layout = layoutOf(body.prompt);
    if (layout === null) return noPlace();
    const texts = layout.segments.map((s) => body.prompt!.toString().slice(s.textStart, s.textEnd));
    const raw = layout.segments.map((s, i): JsonObject => ({ role: s.role, content: texts[i]! }));
    const messages: ChatMessage[] = layout.segments.map((s, i) => ({ role: s.role, text: texts[i]! }));
    const system = messages.filter((m) => m.role === "system").map((m) => m.text);
    return makeView(system.join("\n"), raw, messages);
  },
  apply(body, edits) {
    const prompt = body.prompt as string;
    const layout = layoutOf(prompt);
    if (layout === null) return body;
    return { ...body, prompt: insert(prompt, insertionsOf(layout, edits)) };
  },
  usage: {
    paths: ["usage"],
    read: (u) => cachedPartOfInput(u.prompt_tokens, u.prompt_tokens_details, u.completion_tokens),
  },
});

interface Layout {
  /** The template, or null for a marked prompt (the text before the marker, then the text after it). */
  template: Template | null;
  segments: Segment[];
}

function layoutOf(prompt: string): Layout | null {
  const found = templateOf(prompt);
  if (found) return found;
  const at = prompt.indexOf(PLACE_MARKER);
  if (at === -1) return null;
  const after = at + PLACE_MARKER.length;
  return {
    template: null,
    segments: [
      { role: "system", start: 0, textStart: 0, textEnd: at, end: at },
      { role: "user", start: at, textStart: after, textEnd: prompt.length, end: prompt.length },
    ],
  };
}

/** A body read whole, with no certain place for cards: passed through, and said once. */
function noPlace(): ChatView {
  return {
    ...makeView("", [], []),
    notice: `no chat template (ChatML, Llama 3, Gemma, Mistral) and no ${PLACE_MARKER} marker in the prompt, so where the person's words are is not certain`,
  };
}

interface Insertion {
  at: number;
  /** At one offset: the end of a turn before the start of the next, before a text's start. */
  rank: number;
  text: string;
  /** A marked prompt's marker, replaced by the block. */
  replaces?: number;
}

function insertionsOf(layout: Layout, edits: readonly Edit[]): Insertion[] {
  const { template, segments } = layout;
  const firstSystem = segments.find((s) => s.role === "system");
  const firstUser = segments.find((s) => s.role === "user")!;
  return edits.map((e): Insertion => {
    const seg = segments[e.anchor] ?? firstUser;
    const asTurn = (role: Segment["role"]) => template?.turn(role, e.text) ?? e.text + GAP;
    if (template === null)
      return { at: firstUser.start, rank: 2, text: e.text, replaces: PLACE_MARKER.length };
    switch (e.place) {
      case "before":
        return { at: seg.start, rank: 1, text: asTurn(e.role ?? "system") };
      case "after":
        return { at: seg.end, rank: 0, text: asTurn(e.role ?? "system") };
      case "system_start":
        return firstSystem
          ? { at: firstSystem.textStart, rank: 2, text: e.text + GAP }
          : { at: firstUser.textStart, rank: 2, text: e.text + GAP };
      case "system":
        return firstSystem
          ? { at: firstSystem.textEnd, rank: 3, text: GAP + e.text }
          : { at: firstUser.textStart, rank: 2, text: e.text + GAP };
      default:
        return { at: seg.textStart, rank: 2, text: e.text + GAP };
    }
  });
}

/** The prompt with each insertion at its offset, in order (the first given of one place first). */
function insert(prompt: string, insertions: Insertion[]): string {
  const sorted = insertions
    .map((x, i) => ({ ...x, i }))
    .sort((a, b) => a.at - b.at || a.rank - b.rank || a.i - b.i);
  let out = "";
  let from = 0;
  for (const x of sorted) {
    out += prompt.slice(from, x.at) + x.text;
    from = Math.max(from, x.at + (x.replaces ?? 0));
    if (x.replaces) x.replaces = 0;
  }
  return out + prompt.slice(from);
}
