/**
 * The vault as recall reads it, kept current: the persisted index and the compiled matcher, cached
 * per vault version; card bodies cached per card version. It writes the index and matcher snapshot
 * only when opened with `persist` (a cold process that wants the next one to start warm, or a server);
 * otherwise reading never changes a file. One exception, which is a repair, not a cache: loadIndex
 * settles an import killed part way before reading (vault/_settle.ts).
 *
 * A cold process checks the vault on each call (folder mtimes: vault/catalog.ts), or with `once` (a
 * one-shot command) at its first call only. A long-running
 * server (`watch`) never makes a request wait for a scan of the vault or a rebuild:
 * - a watcher names the files that changed; they alone are compared, after a short pause, between
 *   requests (an in-process writer names its file through `invalidate`, and sees it at once);
 * - every `recheckMs` it compares folder mtimes with the index (a few stats) to catch what the watcher
 *   missed, and when they moved, or a full check is due, the `refresher` (another process: the
 *   binary's `refresh` command) scans and rebuilds; the server then adopts the result;
 * - the matcher it compiles itself is the saved snapshot plus a layer of the cards changed since.
 */

import { join } from "node:path";
import { publicTextOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { describeError } from "../errors.ts";
import {
  BOOKS_DIR,
  indexStale,
  type LoadIndexOptions,
  loadIndex,
  readNoFollow,
  type Vault,
  type VaultIndex,
} from "../vault/index.ts";
import { type Compiled, compile, outsideSnapshot, REFRESH_OVERLAY_MAX } from "./_compiled.ts";
import { type VaultWatcher, watchCards } from "./_watch.ts";

/**
 * Brings a vault's index and snapshot up to date somewhere else (a full check too, when one is due);
 * resolves when it is done.
 */
export type Refresher = () => Promise<void>;

export interface SourceOptions {
  /** Long-running servers: watch the vault and keep checks and rebuilds off the request path. */
  watch?: boolean;
  /**
   * With `watch`: `false` when another watcher names this vault's files (`invalidate`): a book of a
   * vault, whose own watcher covers its books. Default true.
   */
  watcher?: boolean;
  /**
   * How often a watching server compares folder mtimes with the index (default 2000 ms); Infinity:
   * never, where every change is named by `invalidate` (the keeper's own engine, cli/refresh.ts).
   */
  recheckMs?: number;
  /**
   * Save a rebuilt index (index.db) and matcher (matcher.bin) in the vault's state folder, so the
   * next cold process starts warm. Default false: recall then writes nothing.
   */
  persist?: boolean;
  /**
   * Where a watching server has folder scans and snapshot rebuilds done (the gateway and the UI pass
   * one that runs `lorecards refresh`). Without one it does them itself, between requests.
   */
  refresher?: Refresher;
  /** Told every vault-relative path a watching server's watcher names (after the source has noted it). */
  onFile?: (rel: string) => void;
  /**
   * A cold process (no `watch`) sees edits written in place (vault/ `inPlace`); in a large vault that
   * takes a keeper (vault/keeper.ts), which this starts (the hook and `try` pass one that runs
   * `lorecards refresh --watch` in the background) when a load found none.
   */
  keeper?: () => void;
  /**
   * Without `watch`: check the vault at the first call only, then only what `invalidate` names. For a
   * one-shot command (`try`, `explain`), which reads the cards several times for one answer (how far
   * back to read, then each message of `--turns`) and answers for the vault as it found it.
   */
  once?: boolean;
}

/** Bodies kept before the cache starts again (a cache hit saves a file read per fired card). */
const MAX_BODIES = 5000;
/** Watcher events are gathered this long, so a save that writes and renames is compared once. */
const SETTLE_MS = 20;

export class VaultSource {
  private compiled?: Compiled;
  private index?: VaultIndex;
  /** An in-process writer changed something it did not name: check the vault on the next call. */
  private dirty = true;
  /** Files a watcher or a writer named, not compared yet. */
  private readonly touched = new Set<string>();
  private watcher?: VaultWatcher;
  private every?: ReturnType<typeof setInterval>;
  private settling?: ReturnType<typeof setTimeout>;
  private refreshing = false;
  private priming?: Promise<void>;
  private refreshFailed = false;
  private readonly bodies = new Map<string, string>();
  private readonly bodyKeys = new WeakMap<CardMeta, string>();

  constructor(
    readonly vault: Vault,
    private readonly options: SourceOptions = {},
  ) {
    if (!options.watch) return;
    if (options.watcher !== false)
      this.watcher = watchCards(vault.root, (rel) => {
        // A book's files are its own engine's (recall/_library.ts), told through onFile.
        if (!rel.startsWith(`${BOOKS_DIR}/`)) this.touch(rel);
        options.onFile?.(rel);
      });
    const recheckMs = options.recheckMs ?? 2000;
    if (!Number.isFinite(recheckMs)) return;
    this.every = setInterval(() => this.recheck(), recheckMs);
    this.every.unref();
  }

  /**
   * The vault changed in this process: `paths` (vault-relative) when the writer knows which files,
   * which are then compared on the next call; else the next call checks the whole vault.
   */
  invalidate(paths?: readonly string[]): void {
    if (paths === undefined) this.dirty = true;
    else for (const p of paths) this.touched.add(p);
  }

  close(): void {
    this.watcher?.close();
    if (this.every) clearInterval(this.every);
    if (this.settling) clearTimeout(this.settling);
  }

  /** The vault as of now (see the module comment for what a server checks when). */
  async current(): Promise<Compiled> {
    // A server's first load: its refresher brings the index and snapshot up to date first, so even a
    // fresh vault is never indexed (nor its memory peak reached) in the server's own process.
    if (this.compiled === undefined && this.options.refresher) {
      this.priming ??= this.options.refresher().catch((err) => this.refreshFailedWith(err));
      await this.priming;
    }
    if (this.compiled === undefined || this.dirty || !(this.options.watch || this.options.once)) {
      this.dirty = false;
      return this.load({ check: "changed", inPlace: !this.options.watch });
    }
    if (this.touched.size > 0) return this.load(this.named());
    return this.compiled;
  }

  /**
   * A load of the files named since the last one. With its own watcher, whatever changed in their
   * folders was named too, so the folders' new marks are recorded (vault/ `watched`): a save is then
   * one file compared, and the periodic folder check does not hand the refresher a folder to list.
   */
  private named(): LoadIndexOptions {
    return { check: "none", touched: this.take(), ...(this.watcher && { watched: true }) };
  }

  private take(): string[] {
    const paths = [...this.touched];
    this.touched.clear();
    return paths;
  }

  private load(opts: LoadIndexOptions): Compiled {
    const persist = this.options.persist ?? false;
    const index = loadIndex(this.vault, { ...opts, previous: this.index, persist });
    this.index = index;
    if (index.keeper === "missing") this.startKeeper();
    if (this.compiled && this.compiled.loaded.stamp === index.stamp) return this.compiled;
    // A server with a refresher leaves rebuilds to it: its own thread only ever adds a layer.
    const overlayMax = this.options.refresher ? Number.POSITIVE_INFINITY : undefined;
    const previous = this.compiled?.loaded;
    const loaded = compile(this.vault, index, { persist, overlayMax, ...(previous && { previous }) });
    this.compiled = { loaded, kinds: this.vault.kinds, publicText: (card) => this.publicText(card) };
    return this.compiled;
  }

  private keeperStarted = false;

  /** A large vault's keeper is missing: start one, once per process; never fails a load. */
  private startKeeper(): void {
    if (this.keeperStarted || !this.options.keeper) return;
    this.keeperStarted = true;
    try {
      this.options.keeper();
    } catch (err) {
      warn(err);
    }
  }

  /** A watcher named a file: compare it shortly, between requests. */
  private touch(rel: string): void {
    this.touched.add(rel);
    if (this.settling) return;
    this.settling = setTimeout(() => {
      this.settling = undefined;
      // Only the named files: the folders they moved are settled by the next periodic check, so a
      // burst of saves starts one refresh every `recheckMs` at most, not one per save.
      this.guard(() => {
        if (this.compiled && this.touched.size > 0) this.load(this.named());
      });
    }, SETTLE_MS);
    this.settling.unref?.();
  }

  /**
   * Compare folder mtimes (a few stats); when they moved or a full check is due, refresh. So does a
   * server whose matcher holds more changed cards outside the snapshot than a refresh lets stand: the
   * refresher rebuilds the snapshot, for this server and for every cold process after it.
   */
  private recheck(): void {
    this.guard(() => {
      if (this.refreshing || this.index === undefined) return;
      const refresher = this.options.refresher;
      const grown = refresher !== undefined && outsideSnapshot(this.compiled?.loaded) > REFRESH_OVERLAY_MAX;
      if (!grown && !indexStale(this.vault, this.index)) return;
      if (!refresher) {
        this.load({ check: "changed" });
        return;
      }
      this.refreshing = true;
      refresher()
        .then(() => this.guard(() => this.load({ check: "none" })))
        .catch((err) => {
          // The server still has to see the vault: it does the check itself.
          this.refreshFailedWith(err);
          this.guard(() => this.load({ check: "changed" }));
        })
        .finally(() => {
          this.refreshing = false;
        });
    });
  }

  /** A refresh failed: said once, not every `recheckMs`. */
  private refreshFailedWith(err: unknown): void {
    if (!this.refreshFailed) warn(err);
    this.refreshFailed = true;
  }

  /** Background work never throws into a timer: the next request checks again. */
  private guard(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.dirty = true;
      warn(err);
    }
  }

  /**
   * A card's key in the cache of bodies, made once per card: reach and render ask for each fired
   * card's text, and a key made anew each time was a new string to join and hash.
   */
  private bodyKey(card: CardMeta): string {
    let key = this.bodyKeys.get(card);
    if (key === undefined) {
      key = `${card.kind}/${card.key}\0${card.mtime}:${card.size}`;
      this.bodyKeys.set(card, key);
    }
    return key;
  }

  private publicText(card: CardMeta): string {
    const key = this.bodyKey(card);
    const cached = this.bodies.get(key);
    if (cached !== undefined) return cached;
    // Never through a link, even one put in place after the index was read (README "Symbolic links").
    const file = readNoFollow(this.vault, join(this.vault.root, card.path));
    const text = publicTextOf(file, this.vault.kinds);
    if (this.bodies.size > MAX_BODIES) this.bodies.clear();
    this.bodies.set(key, text);
    return text;
  }
}

function warn(err: unknown): void {
  process.stderr.write(`lorecards: vault refresh failed: ${describeError(err)}\n`);
}
