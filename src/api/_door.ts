/**
 * The context door's endpoints (docs/HTTP-API.md): `POST /api/explain` (the same answer as `lorecards
 * explain --json`) and the conversations the gateway and the hook kept in the state store, each turn
 * with the exact blocks it added and what it left out. Reading only: explain is a dry run, and nothing
 * here writes the store.
 */
import { LoreError } from "../errors.ts";
import { openDoor } from "../explain/index.ts";
import { parseTurns } from "../recall/index.ts";
import type { Conversation } from "../state/index.ts";
import { toWire } from "../wire.ts";
import { readJsonObject } from "./_body.ts";
import { askedNames, type Context, optionalCount, recallFields } from "./_routes.ts";

/** Conversations listed, newest first, and turns shown of one: the limits the page reads. */
const CONVERSATIONS = 50;
const TURNS = 100;

export async function explainText(ctx: Context, req: Request) {
  const input = await readJsonObject(req, ctx.limits.json);
  if (typeof input.text !== "string")
    throw new LoreError("invalid_input", 'explain needs {"text": "a sentence"}');
  const turns = parseTurns(input.turns, input.text, { name: "turns", code: "invalid_input" });
  const conversation = await conversationOf(ctx, input.conversation);
  return openDoor(ctx.engine, turns, {
    cards: cardNames(input),
    field: "cards",
    conversation,
    reinjectAfter: optionalCount(input.reinject_after, "reinject_after"),
    budget: optionalCount(input.budget, "budget"),
    scanDepth: optionalCount(input.scan_depth, "scan_depth"),
    ask: await askedNames(ctx, input.with),
    ...recallFields(input),
  });
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

async function conversationOf(ctx: Context, id: unknown): Promise<Conversation | undefined> {
  if (id === undefined || id === null) return undefined;
  if (typeof id !== "string" || id === "")
    throw new LoreError("invalid_input", "conversation must be a conversation id");
  const conversation = await ctx.useStore((s) => s.loadConversation(id));
  if (conversation.turn === 0) throw new LoreError("not_found", `no conversation "${id}"`);
  return conversation;
}

/** `GET /api/conversations`: the most recently seen ones that have turn records, newest first. */
export async function conversations(ctx: Context) {
  return toWire({ conversations: await ctx.useStore((s) => s.conversations(CONVERSATIONS)) });
}

/** `GET /api/conversations/:id`: its newest turns, oldest first, each with the blocks it added. */
export async function conversationTurns(ctx: Context, id: string) {
  const turns = await ctx.useStore((s) => s.turns(id, TURNS));
  if (turns.length === 0) throw new LoreError("not_found", `no turns recorded for conversation "${id}"`);
  return toWire({ id, turns });
}
