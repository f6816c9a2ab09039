/**
 * The vault as recall reads it, kept current: the persisted index and the compiled matcher, cached
 * per vault version; a watcher (long-running servers) so unchanged vaults are not even re-stat'ed;
 * `invalidate` for in-process writers; card bodies cached per card version. It writes the index and
 * matcher snapshots only when opened with `persist` (a cold process that wants the next one to start
 * warm, or a server after a rebuild); otherwise reading never changes a file. One exception, which is
 * a repair, not a cache: loadIndex settles an import killed part way before reading (vault/_settle.ts).
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import { publicTextOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import {
  ARCHIVE_DIR,
  loadIndex,
  readNoFollow,
  STATE_DIR,
  type Vault,
  type VaultIndex,
} from "../vault/index.ts";
import { compile } from "./_compiled.ts";
import type { Compiled } from "./pipeline.ts";

export interface SourceOptions {
  /**
   * Long-running servers: watch the vault and re-check the index only after a change (plus at most
   * once every `recheckMs` as a safety net). Without it every recall re-checks file stats.
   */
  watch?: boolean;
  recheckMs?: number;
  /**
   * Save a rebuilt index (index.json) and matcher (matcher.bin) in the vault's state folder, so the
   * next cold process starts warm. Default false: recall then writes nothing.
   */
  persist?: boolean;
}

/** Bodies kept before the cache starts again (a cache hit saves a file read per fired card). */
const MAX_BODIES = 5000;

export class VaultSource {
  private compiled?: Compiled;
  private lastIndex?: VaultIndex;
  private dirty = true;
  private lastCheck = 0;
  private watcher?: FSWatcher;
  private readonly bodies = new Map<string, string>();

  constructor(
    readonly vault: Vault,
    private readonly options: SourceOptions = {},
  ) {
    if (options.watch) this.watcher = watchVault(vault, () => this.invalidate());
  }

  /** Mark the vault as changed (an in-process writer calls this after a save). */
  invalidate(): void {
    this.dirty = true;
  }

  close(): void {
    this.watcher?.close();
  }

  /** The vault as of now, re-parsing only what changed on disk, recompiling only a new version. */
  async current(): Promise<Compiled> {
    const now = Date.now();
    const recheck = this.options.recheckMs ?? 2000;
    if (this.compiled && this.watcher && !this.dirty && now - this.lastCheck < recheck) return this.compiled;
    this.dirty = false;
    this.lastCheck = now;
    const persist = this.options.persist ?? false;
    const index = loadIndex(this.vault, { previous: this.lastIndex, persist });
    this.lastIndex = index;
    if (this.compiled && this.compiled.loaded.stamp === index.stamp) return this.compiled;
    const loaded = compile(this.vault, index, { persist });
    this.compiled = { loaded, kinds: this.vault.kinds, publicText: (card) => this.publicText(card) };
    return this.compiled;
  }

  private publicText(card: CardMeta): string {
    const key = `${card.kind}/${card.key}\0${card.mtime}:${card.size}`;
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

function watchVault(vault: Vault, changed: () => void): FSWatcher | undefined {
  try {
    // Our own state (state.db, hits.jsonl, the index) changes on every request: not a card edit.
    const watcher = watch(vault.root, { recursive: true }, (_event, name) => {
      const file = typeof name === "string" ? name : "";
      if (file.startsWith(STATE_DIR) || file.startsWith(ARCHIVE_DIR)) return;
      changed();
    });
    watcher.unref();
    return watcher;
  } catch {
    return undefined; // no watcher: fall back to checking stats on every recall
  }
}
