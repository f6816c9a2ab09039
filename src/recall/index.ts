/**
 * Recall: the one pipeline behind the gateway, the hook, `try` and `/api/try`. It answers "which
 * cards belong in front of the model now, and as what exact text?": match → refs → render → budget,
 * with an explanation of every decision. It reads the vault through the persisted index and never
 * writes cards; recording what was injected is the caller's job (state/), so a dry run is just a call.
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import { publicTextOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { findCandidates, fold, jiebaSegmenter, type Segmenter } from "../match/index.ts";
import {
  ARCHIVE_DIR,
  hasLeftovers,
  loadIndex,
  openVault,
  readNoFollow,
  recoverImports,
  STATE_DIR,
  type Vault,
  type VaultIndex,
  withLock,
} from "../vault/index.ts";
import { compile, type Loaded, resolveRef } from "./_compiled.ts";
import { cardHeading, DEFAULT_FRAMING, renderCard, renderContext } from "./render.ts";
import type { Candidates, FiredCard, RecallOptions, RecallResult, Turn } from "./types.ts";

export { recallJson } from "./json.ts";
export { DEFAULT_FRAMING, firstLine, renderCard, renderContext } from "./render.ts";
export { typedText } from "./typed-text.ts";
export * from "./types.ts";

export const DEFAULT_BUDGET = 800;
export const DEFAULT_SCAN_DEPTH = 3;

export interface EngineOptions {
  /** Create the vault with example cards when it does not exist (the default vault does). */
  create?: boolean;
  /**
   * Long-running servers: watch the vault and re-check the index only after a change (plus at most
   * once every `recheckMs` as a safety net). Without it every recall re-checks file stats.
   */
  watch?: boolean;
  recheckMs?: number;
  /** Word segmentation for Chinese/Japanese (default: jieba, loaded on demand). `false` = none. */
  segmenter?: (() => Promise<Segmenter>) | false;
}

export class Engine {
  private loaded?: Loaded;
  private lastIndex?: VaultIndex;
  private dirty = true;
  private lastCheck = 0;
  private watcher?: FSWatcher;
  private readonly rendered = new Map<string, string>();
  private readonly segmenter?: () => Promise<Segmenter>;

  constructor(
    readonly vault: Vault,
    private readonly options: EngineOptions = {},
  ) {
    this.segmenter = options.segmenter === false ? undefined : (options.segmenter ?? jiebaSegmenter);
    if (options.watch) {
      try {
        // Our own state (state.db, hits.jsonl, the index) changes on every request: not a card edit.
        this.watcher = watch(vault.root, { recursive: true }, (_event, name) => {
          const file = typeof name === "string" ? name : "";
          if (file.startsWith(STATE_DIR) || file.startsWith(ARCHIVE_DIR)) return;
          this.dirty = true;
        });
        this.watcher.unref();
      } catch {
        this.watcher = undefined; // no watcher: fall back to checking stats on every recall
      }
    }
  }

  /** Mark the vault as changed (an in-process writer calls this after a save). */
  invalidate(): void {
    this.dirty = true;
  }

  close(): void {
    this.watcher?.close();
  }

  /** Cards and broken cards as of now, re-parsing only what changed on disk. */
  async index(): Promise<Loaded> {
    const now = Date.now();
    const recheck = this.options.recheckMs ?? 2000;
    if (this.loaded && this.watcher && !this.dirty && now - this.lastCheck < recheck) return this.loaded;
    this.dirty = false;
    this.lastCheck = now;
    if (hasLeftovers(this.vault)) await settleImports(this.vault);
    const index = loadIndex(this.vault, { previous: this.lastIndex });
    this.lastIndex = index;
    if (this.loaded && this.loaded.stamp === index.stamp) return this.loaded;
    const loaded = compile(this.vault, index);
    this.loaded = loaded;
    return loaded;
  }

  async recall(turns: readonly Turn[], opts: RecallOptions = {}): Promise<RecallResult> {
    const loaded = await this.index();
    const messages = turns.map((t) => t.text);
    const fired = await this.fire(loaded, messages, opts);
    const chosen = applyBudget(fired, opts.budget ?? DEFAULT_BUDGET);
    return {
      fired,
      injected: chosen.map((c) => c.key),
      injectedIds: chosen.map((c) => c.id),
      truncated: fired.filter((c) => !c.inContext && !c.inBudget).length,
      injectedChars: chosen.reduce((n, c) => n + c.chars, 0),
      context: renderContext(
        chosen.map((c) => c.text),
        opts.framing ?? DEFAULT_FRAMING,
      ),
      broken: loaded.index.broken.map((b) => ({ path: b.path, error: b.error })),
      candidates:
        opts.candidates === false
          ? { names: [], places: [], aliases: [] }
          : await this.candidates(loaded, messages[messages.length - 1] ?? ""),
    };
  }

  /** Every card that fires on the window, in order, rendered. */
  private async fire(loaded: Loaded, messages: string[], opts: RecallOptions): Promise<FiredCard[]> {
    const scanDepth = opts.scanDepth ?? DEFAULT_SCAN_DEPTH;
    const matches = await loaded.matcher.match(messages, { scanDepth, segmenter: this.segmenter });
    const firedIds = new Set(matches.map((m) => idOf(loaded.cards.at(m.card)!)));
    return matches.map((m) => {
      const card = loaded.cards.at(m.card)!;
      const id = idOf(card);
      const text = this.render(card, loaded, firedIds);
      return {
        id,
        key: card.key,
        kind: card.kind,
        title: card.title,
        score: m.score,
        priority: card.priority,
        hits: m.hits,
        text,
        chars: [...text].length,
        inBudget: false,
        inContext: (opts.inContext?.has(id) ?? false) || isPresent(card, opts.present),
        trigger: messages[messages.length - 1 - m.trigger] ?? "",
        version: `${card.mtime}:${card.size}`,
      };
    });
  }

  private candidates(loaded: Loaded, sentence: string): Promise<Candidates> {
    loaded.titles ??= loaded.cards.all().map((c) => fold(c.title));
    return findCandidates(sentence, {
      covered: (f) => loaded.matcher.containsTerm(f),
      titles: loaded.titles,
      segmenter: this.segmenter,
    });
  }

  private render(card: CardMeta, loaded: Loaded, firedIds: Set<string>): string {
    const seeAlso = card.refs
      .map((name) => resolveRef(name, loaded, this.vault.kinds))
      .filter((t): t is CardMeta => t !== undefined && !firedIds.has(idOf(t)) && idOf(t) !== idOf(card))
      .map((t) => ({ key: t.key, firstLine: t.firstLine }));
    const cacheKey = `${idOf(card)}\0${card.mtime}:${card.size}\0${seeAlso.map((s) => `${s.key}\0${s.firstLine}`).join("\0")}`;
    const cached = this.rendered.get(cacheKey);
    if (cached !== undefined) return cached;
    // Never through a link, even one put in place after the index was read (README "Symbolic links").
    const file = readNoFollow(this.vault, join(this.vault.root, card.path));
    const body = publicTextOf(file, this.vault.kinds);
    const text = renderCard({ title: card.title, kind: card.kind, text: body, seeAlso });
    if (this.rendered.size > 5000) this.rendered.clear();
    this.rendered.set(cacheKey, text);
    return text;
  }
}

/**
 * An import killed part way leaves its staging folder behind: finish or undo it before reading, so
 * the cards never show a half-imported book. A live import holds the lock; then there is nothing
 * to settle, and we do not wait for it.
 */
async function settleImports(vault: Vault): Promise<void> {
  try {
    await withLock(vault, () => recoverImports(vault), { timeoutMs: 0 });
  } catch {
    // locked by the import that owns the folder, or not ours to fix (read-only vault): read as is
  }
}

/** Open a vault and its engine. */
export async function openEngine(root: string, options: EngineOptions = {}): Promise<Engine> {
  const vault = openVault(root, { create: options.create ?? false });
  return new Engine(vault, options);
}

/** The card's heading line, whole, inside one of the blocks already in the request. */
function isPresent(card: CardMeta, present: readonly string[] | undefined): boolean {
  if (!present || present.length === 0) return false;
  const line = `\n${cardHeading(card.title, card.kind)}\n`;
  return present.some((block) => `\n${block}\n`.includes(line));
}

export function idOf(card: Pick<CardMeta, "kind" | "key">): string {
  return `${card.kind}/${card.key}`;
}

/**
 * The budget: cards already in context are set aside first; then the top card always gets in, and
 * the first card that would overflow stops the list (later, smaller cards are not squeezed in, so
 * the order the user sees is the order of importance).
 */
function applyBudget(fired: FiredCard[], budget: number): FiredCard[] {
  const chosen: FiredCard[] = [];
  let used = 0;
  for (const card of fired) {
    if (card.inContext) continue;
    if (chosen.length > 0 && used + card.chars > budget) break;
    card.inBudget = true;
    chosen.push(card);
    used += card.chars;
  }
  return chosen;
}
