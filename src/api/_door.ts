/**
 * The context door's endpoints (docs/HTTP-API.md): `POST /api/explain` (the same answer as `lorecards
 * explain --json`) and the conversations the gateway and the hook kept in the state store, each turn
 * with the exact blocks it added and what it left out. Reading only: explain is a dry run, and nothing
 * here writes the store.
 */
import { LoreError } from "../errors.ts";
import { openDoor } from "../explain/index.ts";
import { earlierIn, parseTurns, type RecallOptions } from "../recall/index.ts";
import type { Conversation, TurnRecord } from "../state/index.ts";
import { toWire } from "../wire.ts";
import { readJsonObject } from "./_body.ts";
import { askedNames, checkBooks, optionalCount, recallFields } from "./_recall-fields.ts";
import type { Context } from "./_routes.ts";

/** Conversations listed, newest first, and turns shown of one: the limits the page reads. */
const CONVERSATIONS = 50;
const TURNS = 100;

export async function explainText(ctx: Context, req: Request) {
  const input = await readJsonObject(req, ctx.limits.json);
  if (typeof input.text !== "string")
    throw new LoreError("invalid_input", 'explain needs {"text": "a sentence"}');
  const turns = parseTurns(input.turns, input.text, { name: "turns", code: "invalid_input" });
  const conversation = await conversationOf(ctx, input.conversation);
  const fields = withConversationBooks(recallFields(input), conversation?.books);
  checkBooks(ctx, fields);
  return openDoor(ctx.engine, turns, {
    cards: cardNames(input),
    field: "cards",
    conversation,
    reinjectAfter: optionalCount(input.reinject_after, "reinject_after"),
    budget: optionalCount(input.budget, "budget"),
    scanDepth: optionalCount(input.scan_depth, "scan_depth"),
    ask: await askedNames(ctx, input.with, fields.books),
    tierHints: await tierHintsOf(ctx, input.tier),
    earlier: earlierOf(input.earlier),
    ...fields,
  });
}

/** `earlier`: `["Name@12", "Other@2026-06-01"]`. */
function earlierOf(value: unknown) {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new LoreError("invalid_input", 'earlier must be a list of "Name@version" or "Name@date"');
  return value.flatMap((v) => earlierIn(v, "invalid_input"));
}

/** `tier`: `{"Name": "stable" | "volatile"}`, each name finding a card. */
async function tierHintsOf(ctx: Context, value: unknown) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    throw new LoreError("invalid_input", 'tier must map card names to "stable" or "volatile"');
  const hints = Object.entries(value as Record<string, unknown>).map(([name, tier]) => {
    if (tier !== "stable" && tier !== "volatile")
      throw new LoreError("invalid_input", `tier of "${name}" must be "stable" or "volatile"`);
    return { name: name.trim(), tier: tier as "stable" | "volatile" };
  });
  const unknown = await ctx.engine.unknownNames(hints.map((h) => h.name));
  if (unknown.length > 0)
    throw new LoreError("not_found", `tier: no card named ${unknown.map((n) => `"${n}"`).join(", ")}`);
  return hints;
}

/** `card` (one name) and `cards` (a list), together. */
function cardNames(input: Record<string, unknown>): string[] {
  const names: unknown[] = [];
  if (input.card !== undefined && input.card !== null) names.push(input.card);
  if (input.cards !== undefined && input.cards !== null) {
    if (!Array.isArray(input.cards))
      throw new LoreError("invalid_input", "cards must be a list of card names");
    names.push(...input.cards);
  }
  if (!names.every((n) => typeof n === "string"))
    throw new LoreError("invalid_input", "card and cards must be card names (strings)");
  return (names as string[]).map((n) => n.trim()).filter((n) => n !== "");
}

async function conversationOf(
  ctx: Context,
  id: unknown,
): Promise<(Conversation & { books?: string[] }) | undefined> {
  if (id === undefined || id === null) return undefined;
  if (typeof id !== "string" || id === "")
    throw new LoreError("invalid_input", "conversation must be a conversation id");
  const [conversation, last] = await ctx.useStore(
    async (s) => [await s.loadConversation(id), (await s.turns(id, 1)).at(-1)] as const,
  );
  if (conversation.turn === 0) throw new LoreError("not_found", `no conversation "${id}"`);
  return last?.books ? { ...conversation, books: last.books } : conversation;
}

/** A conversation's next turn reads the books its last turn read, unless the request names others. */
function withConversationBooks(fields: RecallOptions, books: string[] | undefined): RecallOptions {
  if (books === undefined || fields.books?.named !== undefined) return fields;
  return { ...fields, books: { ...fields.books, named: books } };
}

/** Cards named per conversation in the list; the rest are counted. */
const CARDS_NAMED = 8;

/**
 * `GET /api/conversations`: the most recently seen ones that have turn records, newest first, each with
 * what a person knows it by: the client (surface and API), the model, when it began and was last seen,
 * and the cards that went in (never a message: none is kept).
 */
export async function conversations(ctx: Context) {
  const list = await ctx.useStore(async (s) => {
    const summaries = await s.conversations(CONVERSATIONS);
    return Promise.all(summaries.map(async (c) => ({ ...c, ...aboutTurns(await s.turns(c.id, TURNS)) })));
  });
  return toWire({ conversations: list });
}

/** What the kept turns of a conversation say about it. */
function aboutTurns(turns: readonly TurnRecord[]) {
  const cards = [...new Set(turns.flatMap((t) => t.blocks.flatMap((b) => b.cards)))];
  const newest = turns.at(-1);
  return {
    api: newest?.api ?? null,
    model: turns.findLast((t) => t.model)?.model ?? null,
    // The books its turns read (docs/BOOKS.md): `main` alone for a vault without books.
    books: [...new Set(turns.flatMap((t) => t.books ?? ["main"]))],
    firstSeen: turns[0]?.at ?? null,
    cards: cards.slice(0, CARDS_NAMED),
    cardCount: cards.length,
  };
}

/** The longest name a conversation may be given. */
const MAX_NAME = 200;

/** `PUT /api/conversations/:id` `{"name": "…"}` (null or "" takes the name away) → `{id, name}`. */
export async function nameConversation(ctx: Context, req: Request, id: string) {
  const input = await readJsonObject(req, ctx.limits.json);
  if (input.name !== null && typeof input.name !== "string")
    throw new LoreError("invalid_input", 'a conversation\'s name is {"name": "…"} (or null to take it away)');
  const name = typeof input.name === "string" && input.name.trim() !== "" ? input.name.trim() : null;
  if (name !== null && [...name].length > MAX_NAME)
    throw new LoreError("invalid_input", `a conversation's name can be up to ${MAX_NAME} characters long`);
  if (!(await ctx.useStore((s) => s.nameConversation(id, name))))
    throw new LoreError("not_found", `no conversation "${id}"`);
  return { id, name };
}

/** `GET /api/conversations/:id`: its newest turns, oldest first, each with the blocks it added. */
export async function conversationTurns(ctx: Context, id: string) {
  const turns = await ctx.useStore((s) => s.turns(id, TURNS));
  if (turns.length === 0) throw new LoreError("not_found", `no turns recorded for conversation "${id}"`);
  return toWire({ id, turns });
}
