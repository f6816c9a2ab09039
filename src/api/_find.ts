/**
 * Finding cards across a whole vault, for the editor's list (docs/HTTP-API.md): search of card text
 * (`GET /api/search`), what the list sorts and filters by that the index does not hold (`GET
 * /api/facts`: size in tokens, how often a card fired, the book it was imported from), a card's links
 * (`GET /api/cards/{kind}/{key}/links`: the cards it names, the cards naming it, what reach would bring)
 * and what the budget holds before anyone says a word (`GET /api/budget`). Reading only.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardMeta } from "../card/types.ts";
import { DEFAULTS } from "../defaults.ts";
import { recallJson } from "../explain/index.ts";
import { fold } from "../match/index.ts";
import { DEFAULT_BUDGET } from "../recall/index.ts";
import { importedFrom, readCard, refTarget } from "../vault/index.ts";
import type { Context } from "./_routes.ts";

/** The longest query, and the most results with a snippet: a search is typed, not pasted. */
const MAX_QUERY = 200;
const SNIPPETS = 200;
/** Characters of text shown before a match and after it: a list row shows the start of a line. */
const BEFORE = 12;
const AFTER = 140;
/** Hits of the log read for how often each card fired. */
const FIRED_HITS = 100_000;
const FIRED_DAYS = 30;

const idOf = (c: Pick<CardMeta, "kind" | "key">) => `${c.kind}/${c.key}`;

/** The query's words: split on white space, case-folded as the matcher folds. */
export function queryWords(q: string): string[] {
  return [...new Set(fold(q).split(/\s+/).filter(Boolean))];
}

/**
 * A line of the card's text around the first place it holds one of `words` (any case), or null when it
 * does not; section headings are left out (they are the form's labels, not what the card says).
 */
export function snippetOf(text: string, words: readonly string[]): string | null {
  text = text.replace(/^#{1,6}[ \t].*$/gm, "");
  const lower = text.toLowerCase();
  let at = -1;
  for (const w of words) {
    at = lower.indexOf(w);
    if (at >= 0) break;
  }
  if (at < 0) return null;
  const start = Math.max(0, at - BEFORE);
  const end = Math.min(text.length, at + AFTER);
  const cut = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${cut}${end < text.length ? "…" : ""}`;
}

/**
 * `GET /api/search?q=`: every live card whose title, words, tags or public text hold every word of
 * `q` (case-folded as the matcher folds: "straße" finds "STRASSE"), as `kind/key`, in the list's
 * order; the first ones found in the text come with a snippet of it. Private sections are never searched.
 */
export function search(ctx: Context, url: URL) {
  const q = (url.searchParams.get("q") ?? "").slice(0, MAX_QUERY);
  const words = queryWords(q);
  if (words.length === 0) return { q, cards: [], snippets: {} };
  const cards: string[] = [];
  const snippets: Record<string, string> = {};
  let snipped = 0;
  for (const e of ctx.shelf.all()) {
    if (!words.every((w) => e.folded.includes(w))) continue;
    const id = idOf(e.card);
    cards.push(id);
    if (snipped >= SNIPPETS) continue;
    const snippet = snippetOf(e.text, words);
    if (snippet === null) continue;
    snippets[id] = snippet;
    snipped++;
  }
  return { q, cards, snippets };
}

/**
 * `GET /api/facts`: per card (`kind/key`), its public text's size in tokens (estimated: card/
 * `estimateTokens`), how often it went in over the last 30 days and when last (the hit log, which names
 * cards by key), and the file it was imported from (its newest import in history).
 */
export async function facts(ctx: Context) {
  const entries = ctx.shelf.all();
  const since = ctx.now().getTime() - FIRED_DAYS * 86_400_000;
  const fired = new Map<string, { count: number; last: string }>();
  for (const hit of await ctx.hits.recent(FIRED_HITS)) {
    if (Date.parse(hit.time) < since) break; // newest first
    for (const key of new Set(hit.keys)) {
      const seen = fired.get(key);
      if (seen) seen.count++;
      else fired.set(key, { count: 1, last: hit.time });
    }
  }
  const books = importedFrom(ctx.vault);
  const cards: Record<
    string,
    { tokens: number; fired: number; last_fired: string | null; book: string | null }
  > = {};
  for (const e of entries) {
    const id = idOf(e.card);
    const f = fired.get(e.card.key);
    cards[id] = {
      tokens: e.tokens ?? 0,
      fired: f?.count ?? 0,
      last_fired: f?.last ?? null,
      book: books.get(id) ?? null,
    };
  }
  return { fired_days: FIRED_DAYS, books: [...new Set(books.values())].sort(), cards };
}

interface LinkedCard {
  kind: string;
  key: string;
  title: string;
  enabled: boolean;
}

const linked = (c: CardMeta): LinkedCard => ({
  kind: c.kind,
  key: c.key,
  title: c.title,
  enabled: c.enabled,
});

/**
 * `GET /api/cards/{kind}/{key}/links`: `names` (its refs, each the card it finds or `missing`),
 * `named_by` (cards whose refs find it), `reaches` (the cards its text would bring in by one-hop reach,
 * found by recall itself; none when it has `prevent_recursion`) and `mentioned_by` (cards whose text
 * holds its title, a keyword or an alias: what could bring it in by reach).
 */
export async function links(ctx: Context, kindName: string, key: string) {
  const card = readCard(ctx.vault, kindName, key);
  const { cards, lookup } = ctx.shelf.catalog();
  const self = idOf(card);
  const names = card.refs.map((ref) => {
    const target = refTarget(lookup, ref);
    return target.status === "missing" ? { ref, missing: true } : { ref, ...linked(target.card) };
  });
  const namedBy = cards.filter(
    (c) =>
      idOf(c) !== self &&
      c.refs.some((r) => {
        const t = lookup.find(r);
        return t !== undefined && idOf(t) === self;
      }),
  );
  const entries = ctx.shelf.all();
  const text = entries.find((e) => idOf(e.card) === self)?.text ?? "";
  const reaches =
    rulesOf(card).preventRecursion || text.trim() === ""
      ? []
      : recallJson(
          await ctx.engine.recall([{ role: "user", text }], {
            reach: "named",
            budget: Number.MAX_SAFE_INTEGER,
          }),
        ).fired.filter((f) => f.hits.length > 0 && `${f.kind}/${f.key}` !== self);
  const terms = [card.title, ...card.keywords, ...card.aliases].map(fold).filter((t) => t.length > 1);
  const mentionedBy = rulesOf(card).excludeRecursion
    ? []
    : entries
        .filter((e) => idOf(e.card) !== self && terms.some((t) => e.folded.includes(t, e.textAt)))
        .map((e) => e.card);
  return {
    kind: card.kind,
    key: card.key,
    names,
    named_by: namedBy.map(linked),
    reaches: reaches.map((f) => ({ kind: f.kind, key: f.key, title: f.title, hits: f.hits })),
    mentioned_by: mentionedBy.map(linked),
  };
}

/**
 * `GET /api/budget`: what a turn holds before anyone names a card: the character budget, the token
 * budget when the vault sets one, and the always-on cards (`context: always`) with their size and
 * whether each is sent, from a recall of an empty message (the pipeline's own answer); `large` when
 * they alone come to more than `DEFAULTS.alwaysOnWarnTokens` (tokens estimated, card/ `estimateTokens`).
 */
export async function budget(ctx: Context) {
  const result = recallJson(await ctx.engine.recall([{ role: "user", text: "" }]));
  const always = result.fired.filter((f) => f.via === "always");
  const tokensOf = new Map(ctx.shelf.all().map((e) => [idOf(e.card), e.tokens]));
  const cards = always.map((f) => ({
    kind: f.kind,
    key: f.key,
    title: f.title,
    chars: f.chars,
    tokens: tokensOf.get(`${f.kind}/${f.key}`) ?? 0,
    in_budget: f.in_budget,
  }));
  const tokens = cards.reduce((n, c) => n + c.tokens, 0);
  return {
    budget: DEFAULT_BUDGET,
    budget_tokens: ctx.engine.settings().budgetTokens ?? null,
    always: {
      cards,
      chars: always.reduce((n, f) => n + f.chars, 0),
      tokens,
      left_out: always.filter((f) => !f.in_budget).length,
      large: tokens > DEFAULTS.alwaysOnWarnTokens,
    },
  };
}
