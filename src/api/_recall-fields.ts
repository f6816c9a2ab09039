/**
 * The recall fields a request may give (`POST /api/try`, `POST /api/explain`: docs/HTTP-API.md), read
 * one way: counts, names, the switch and reach, the books to read (`books`, docs/BOOKS.md), and the
 * cards asked for by name, each checked against the vault and refused naming what was wrong.
 */
import { LORE_SWITCHES, type LoreSwitch, REACHES, type Reach } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import type { BookAsk, RecallOptions } from "../recall/index.ts";
import type { Context } from "./_routes.ts";

export function optionalCount(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new LoreError("invalid_input", `${name} must be a whole number ≥ 0`);
  }
  return value;
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new LoreError("invalid_input", `${name} must be a string`);
  return value;
}

/**
 * `with`: the names of cards asked for (manual cards come in only this way), as `try --with`; a name
 * that finds no card is `not_found`.
 */
export async function askedNames(ctx: Context, value: unknown, books?: BookAsk): Promise<string[]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new LoreError("invalid_input", "with must be a list of card names");
  }
  const ask = value.map((v) => v.trim()).filter((v) => v !== "");
  const unknown = await ctx.engine.unknownNames(ask, books);
  if (unknown.length > 0) {
    throw new LoreError("not_found", `with: no card named ${unknown.map((n) => `"${n}"`).join(", ")}`);
  }
  return ask;
}

/** `char`, `user`, `budget_tokens`, `reach`, `seed`: as `try`'s flags; absent = the vault's settings. */
export function recallFields(input: Record<string, unknown>): RecallOptions {
  const char = optionalText(input.char, "char");
  const user = optionalText(input.user, "user");
  const reach = optionalText(input.reach, "reach");
  if (reach !== undefined && !(REACHES as readonly string[]).includes(reach)) {
    throw new LoreError("invalid_input", `reach must be ${REACHES.join(" or ")}`);
  }
  const lore = optionalText(input.lore, "lore");
  if (lore !== undefined && !(LORE_SWITCHES as readonly string[]).includes(lore)) {
    throw new LoreError("invalid_input", `lore must be ${LORE_SWITCHES.join(", ")}`);
  }
  const books = booksField(input.books);
  return {
    ...(char !== undefined || user !== undefined ? { names: { char, user } } : {}),
    ...((books.length > 0 || char !== undefined) && {
      books: { ...(books.length > 0 && { named: books }), ...(char !== undefined && { character: char }) },
    }),
    budgetTokens: optionalCount(input.budget_tokens, "budget_tokens"),
    reach: reach as Reach | undefined,
    lore: lore as LoreSwitch | undefined,
    seed: optionalText(input.seed, "seed"),
  };
}

/** `books`: the books a try or an explanation reads, `["eldoria", "seraphina"]` (docs/BOOKS.md). */
function booksField(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new LoreError("invalid_input", 'books must be a list of book names, e.g. ["eldoria", "seraphina"]');
  return value.map((v) => v.trim()).filter((v) => v !== "");
}

/** The books a request's fields name, each one the vault has: else `not_found`, naming the books there are. */
export function checkBooks(ctx: Context, options: RecallOptions): void {
  const { unknown } = ctx.engine.chooseBooks(options.books);
  if (unknown.length === 0) return;
  const there = ctx.engine
    .books()
    .map((b) => b.name)
    .join(", ");
  throw new LoreError(
    "not_found",
    `books: no book ${unknown.map((n) => `"${n}"`).join(", ")} (this vault has ${there})`,
  );
}
