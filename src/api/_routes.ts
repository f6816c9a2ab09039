import {
  type Card,
  cardForm,
  type KindDef,
  keyFromTitle,
  keyProblem,
  kindByName,
  updateCardText,
} from "../card/index.ts";
import { checkVault } from "../check/vault.ts";
import { LoreError } from "../errors.ts";
import { recallJson } from "../explain/index.ts";
import { errorResponse } from "../http/index.ts";
import { chosenCards, type Engine, hitEntry, parseTurns, simulate, type Turn } from "../recall/index.ts";
import type { HitEntry, Store } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { archiveCard, createCard, readCard, restoreCard, updateCard, type Vault } from "../vault/index.ts";
import { vetCreate, vetUpdate } from "../vet/index.ts";
import { isoFromNs, toWire } from "../wire.ts";
import { mtimeOf, readJsonObject } from "./_body.ts";
import { bodyOf, frontmatterOf, patched } from "./_card-json.ts";
import { writerOf } from "./_history.ts";
import { askedNames, checkBooks, optionalCount, recallFields } from "./_recall-fields.ts";
import type { Shelf } from "./_shelf.ts";

export interface Context {
  /** The vault of the book the request is about (`?book=`; the vault's own cards by default). */
  vault: Vault;
  /** That book's engine. */
  engine: Engine;
  /** The engine of the whole vault: its books, and recall over several of them. */
  main: Engine;
  /** The book's name (`main`: the vault's own cards). */
  book: string;
  noLog: boolean;
  limits: { json: number; import: number };
  now: () => Date;
  /** The hit log, behind the state store (state/). */
  hits: { append(entries: HitEntry[]): Promise<void>; recent(limit: number): Promise<HitEntry[]> };
  /** Runs `fn` on the state store: the caller's, or the vault's own opened for the call. */
  useStore<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /** Style memory's options (its clock), for _style.ts. */
  style?: StyleOptions;
  /** Every live card's public text, for search, links and sizes (_shelf.ts). */
  shelf: Shelf;
}

export function kinds(ctx: Context) {
  return {
    kinds: ctx.vault.kinds.kinds.map((k) => ({
      name: k.name,
      dir: k.dir,
      sections: k.sections,
      recent: k.recent ?? null,
    })),
    private_sections: ctx.vault.kinds.privateSections,
  };
}

export function truthy(value: string | null): boolean {
  return value !== null && ["1", "true", "yes"].includes(value.toLowerCase());
}

export function getCard(ctx: Context, kind: string, key: string) {
  const card = readCard(ctx.vault, kind, key);
  return cardForm(card, kindByName(ctx.vault.kinds, card.kind));
}

export async function postCard(ctx: Context, req: Request) {
  const input = await readJsonObject(req, ctx.limits.json);
  if (typeof input.kind !== "string") throw new LoreError("invalid_input", "kind is required");
  // MCP's name for the text: kept as frontmatter like any unknown key, it left a new card with no text.
  if (input.sections !== undefined)
    throw new LoreError(
      "invalid_input",
      'a card\'s text goes in fields (an object of section → text: {"who": "…"}) or whole in body; sections is MCP\'s list',
    );
  const kind = kindByName(ctx.vault.kinds, input.kind);
  const title = typeof input.title === "string" ? input.title.trim() : "";
  const given = typeof input.key === "string" && input.key.trim() !== "" ? input.key.trim() : null;
  // A title always gives a legal key; a key given as such is checked here to say what to change.
  const key = given ?? (title ? keyFromTitle(title) : "");
  if (key === "") throw new LoreError("invalid_input", "a new card needs a key or a title");
  if (given !== null) refuseIllegalKey(given);
  const draft = {
    kind: kind.name,
    key,
    frontmatter: frontmatterOf(input, kind, key),
    body: bodyOf(input, kind, ctx.vault.kinds) ?? "",
  };
  // README "Write checks": a refusal throws before anything is written; the rest comes back as `checks`
  // (`warnings` is taken: the card's frontmatter values that fell back to defaults).
  const checks = vetCreate(ctx.vault, draft);
  const card = await createCard(ctx.vault, draft, { writer: writerOf(req) });
  ctx.engine.invalidate();
  return Response.json({ ...cardForm(card, kind), checks }, { status: 201 });
}

function refuseIllegalKey(key: string): void {
  const problem = keyProblem(key);
  if (problem === null) return;
  throw new LoreError(
    "invalid_key",
    `${problem}: ${JSON.stringify(key)}; choose another key, for example ${JSON.stringify(keyFromTitle(key))}, ` +
      "or leave the key out to make one from the title",
  );
}

export async function putCard(ctx: Context, req: Request, kindName: string, key: string) {
  const input = await readJsonObject(req, ctx.limits.json);
  const kind = kindByName(ctx.vault.kinds, kindName);
  return writeCard(ctx, req, kind, readCard(ctx.vault, kind.name, key), input);
}

/**
 * PATCH: what is sent over the card as it is (_card-json.ts `patched`), then written as a PUT of the
 * whole. A script that changes one section or one list need not send back the rest: one that sent
 * only `fields` in a PUT replaced the card with that section alone.
 */
export async function patchCard(ctx: Context, req: Request, kindName: string, key: string) {
  const input = await readJsonObject(req, ctx.limits.json);
  const kind = kindByName(ctx.vault.kinds, kindName);
  const current = readCard(ctx.vault, kind.name, key);
  return writeCard(ctx, req, kind, current, patched(cardForm(current, kind), input));
}

async function writeCard(
  ctx: Context,
  req: Request,
  kind: KindDef,
  current: Card,
  input: Record<string, unknown>,
) {
  const key = current.key;
  const mtime = mtimeOf(input);
  const frontmatter: Record<string, unknown> = frontmatterOf(input, kind, key);
  // The folder is the kind (a `kind:` line only informs): a file written without one is saved without
  // one, not given a line and a version by its first save.
  if (!("kind" in current.frontmatter)) delete frontmatter.kind;
  // So is one without a `title:` line whose title is still its file name's: a note renamed later in
  // the person's own editor would go on answering to the old name.
  if (!("title" in current.frontmatter) && frontmatter.title === current.title) delete frontmatter.title;
  // With `extra` given, it is the whole set of unknown keys: one it leaves out is removed.
  if (input.extra !== undefined) {
    for (const k of Object.keys(current.frontmatter))
      if (!(k in frontmatter) && !(k in input)) frontmatter[k] = undefined;
  }
  const edit = { frontmatter, body: bodyOf(input, kind, ctx.vault.kinds) };
  // A card changed since it was read is a conflict (below) before it is anything the checks could say.
  const stale = mtime !== undefined && mtime !== current.mtime;
  const checks = stale ? [] : vetUpdate(ctx.vault, kind.name, key, (text) => updateCardText(text, edit));
  try {
    const card = await updateCard(ctx.vault, kind.name, key, edit, {
      mtime,
      writer: writerOf(req),
    });
    ctx.engine.invalidate();
    return { ...cardForm(card, kind), checks };
  } catch (err) {
    if (err instanceof LoreError && err.code === "conflict" && err.data) {
      const latest = cardForm(err.data as Card, kind);
      return errorResponse("conflict", err.message, { fields: { current: latest } });
    }
    throw err;
  }
}

export async function deleteCard(ctx: Context, req: Request, kind: string, key: string) {
  const a = await archiveCard(ctx.vault, kind, key, { writer: writerOf(req) });
  ctx.engine.invalidate();
  return {
    archived: {
      kind: a.kind,
      key: a.key,
      original_key: a.originalKey,
      path: a.path,
      mtime: isoFromNs(a.mtime),
    },
  };
}

export async function restore(ctx: Context, req: Request, kind: string, key: string) {
  const card = await restoreCard(ctx.vault, kind, key, { writer: writerOf(req) });
  ctx.engine.invalidate();
  return cardForm(card, kindByName(ctx.vault.kinds, card.kind));
}

function turnsOf(input: Record<string, unknown>): Turn[] {
  const text = input.text ?? input.sentence;
  if (typeof text !== "string") throw new LoreError("invalid_input", 'try needs {"text": "a sentence"}');
  return parseTurns(input.turns, text, { name: "turns", code: "invalid_input" });
}

export async function tryText(ctx: Context, req: Request, url: URL) {
  const input = await readJsonObject(req, ctx.limits.json);
  const turns = turnsOf(input);
  const fields = recallFields(input);
  checkBooks(ctx, fields);
  const ask = await askedNames(ctx, input.with, fields.books);
  // Given turns are replayed one user message at a time, as `try --turns` does (timed effects).
  const scanDepth = optionalCount(input.scan_depth, "scan_depth");
  const result = await simulate(
    (t, o) => ctx.engine.recall(t, o),
    turns,
    { budget: optionalCount(input.budget, "budget"), scanDepth, ...fields, ask },
    await ctx.engine.reach(scanDepth, fields.books),
  );
  // `--no-log` wins over `?log=1` (README "What gets written to disk").
  const logged = truthy(url.searchParams.get("log")) && !ctx.noLog && chosenCards(result).length > 0;
  if (logged) {
    const message = turns[turns.length - 1]!.text;
    await ctx.hits.append([hitEntry("try", result, message, ctx.now())]);
  }
  return { ...recallJson(result), logged };
}

export async function recent(ctx: Context, url: URL) {
  const raw = url.searchParams.get("limit");
  const limit = raw === null ? 50 : Number(raw);
  if (!Number.isInteger(limit) || limit < 0)
    throw new LoreError("invalid_input", "limit must be a whole number ≥ 0");
  return { hits: await ctx.hits.recent(Math.min(limit, 1000)) };
}

export function checkup(ctx: Context) {
  // The same shape as `lorecards check --json`, plus the count of unparseable files.
  const styleEnv = { settings: ctx.style?.settings ?? {}, problems: [] };
  const { cards, errors, warnings, broken, findings, style, files } = checkVault(ctx.vault, {}, styleEnv);
  return { cards, errors, warnings, broken, findings, files: toWire(files), style: toWire(style) };
}
