/**
 * The pipeline's dependencies backed by a vault on disk: the recall engine and the state store (which
 * holds the marker secret and the hit log too). Each is opened on first use; an open that fails is
 * retried on the next request, so a gateway started before its vault is readable begins injecting
 * once it is.
 *
 * A running gateway never creates its vault. Before each chat request it checks that the folder is
 * there (a watching gateway asks its watcher, _vault-facts.ts); while it is not (moved away, deleted, never created), requests pass through unchanged, one
 * line on stderr says so, and everything opened on the old folder is let go, so nothing writes into a
 * folder that moved and nothing re-creates the path. When the folder is back, one more line, and cards
 * are injected again. The one vault made on purpose is the default one (`engine.create`): it is
 * created when the gateway starts, never later.
 */

import { describeError, warnOnStderr } from "../errors.ts";
import type { Markers } from "../inject/index.ts";
import { markersFromSecret } from "../inject/index.ts";
import type { BookAsk, RecallOptions, RecallResult, Turn } from "../recall/index.ts";
import { type EngineOptions, openEngine } from "../recall/index.ts";
import { type HitEntry, openStore, type Store, secretPath, stateUrl } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { blockOpening } from "../style-surface/brief.ts";
import { gatewayLearner } from "../style-surface/index.ts";
import { openVault } from "../vault/index.ts";
import { isVaultFolder } from "../vault/root.ts";
import { vaultFacts } from "./_vault-facts.ts";
import type { PipelineDeps } from "./pipeline.ts";

type Engine = Awaited<ReturnType<typeof openEngine>>;

export interface VaultDepsOptions {
  vaultRoot: string;
  /**
   * Passed to the engine (watch is on by default: a gateway is long-running). `create` makes a
   * missing vault, with its example cards, once, here at start; a vault that goes away later is
   * never made again.
   */
  engine?: EngineOptions;
  /**
   * An engine someone else opened and owns (the editor, in one process with the gateway): its
   * writes invalidate it at once, so a card saved in the editor is injected on the next request.
   */
  sharedEngine?: Engine;
  /** Where conversation state lives (state/ `openStore`); the vault's own state.db by default. */
  state?: string;
  warn?: (line: string) => void;
  now?: () => number;
  /** Style memory learns from the person's messages (default true; `--no-learn`), on this clock. */
  learn?: boolean;
  style?: StyleOptions;
  /** `--style-brief`: the style brief goes in each conversation's boot block, after the guide. */
  styleBrief?: boolean;
}

export interface VaultDeps extends PipelineDeps {
  /** The recall engine, opened on first use (the hook server in the same process shares it). */
  engine(): Promise<Engine>;
  close(): Promise<void>;
}

export function vaultDeps(options: VaultDepsOptions): VaultDeps {
  const root = options.vaultRoot;
  const warn = options.warn ?? warnOnStderr;
  // Long-running: a rebuild after a card edit is saved, so the next hook or `try` starts warm.
  const engineOptions: EngineOptions = { watch: true, persist: true, ...options.engine, create: false };
  let engine: Promise<Engine> | undefined = options.sharedEngine && Promise.resolve(options.sharedEngine);
  let store: Promise<Store> | undefined;
  let markers: { secret: string; markers: Markers } | undefined;
  // Once closed (a tenant let go of when idle), an answer still streaming must not open anything anew.
  let closed = false;

  if (options.engine?.create && !isVaultFolder(root)) {
    try {
      openVault(root, { create: true });
      warn(`lorecards gateway: created the vault ${root}, with an example card of each kind`);
    } catch (err) {
      warn(`lorecards gateway: could not create the vault ${root}: ${describeError(err)}`);
    }
  }
  const learner =
    options.learn === false
      ? undefined
      : gatewayLearner({ vaultRoot: root, style: options.style, warn, who: "lorecards gateway" });
  // The folder, the guide and the secret's file, from a watcher while the gateway watches its vault.
  const facts = vaultFacts(root, { watch: engineOptions.watch === true });
  // The secret's file is the vault's own only with the vault's own state.db (a named store keeps its
  // own); its path is known once the store has opened (a vault that is a file has none).
  let secretFile: string | undefined;
  let present = facts.present();
  if (!present) warnMissing();

  function warnMissing(): void {
    warn(
      `lorecards gateway: no vault at ${root}: chat requests pass through unchanged until it is there ` +
        "(the gateway does not create it)",
    );
  }

  const openedEngine = (): Promise<Engine> => {
    if (closed) return Promise.reject(new Error("the gateway's vault was closed"));
    if (!engine) {
      const opening = openEngine(root, engineOptions);
      engine = opening;
      opening.catch(() => {
        if (engine === opening) engine = undefined;
      });
    }
    return engine;
  };

  const openedStore = (): Promise<Store> => {
    if (closed) return Promise.reject(new Error("the gateway's state was closed"));
    if (!store) {
      const opening = openStore(options.state ?? stateUrl(root), {
        warn,
        watch: engineOptions.watch === true,
      });
      store = opening;
      opening.catch(() => {
        if (store === opening) store = undefined;
      });
    }
    return store;
  };

  const closeStore = (): Promise<void> => {
    const closing = store?.then((s) => s.close()).catch(() => undefined);
    store = undefined;
    return closing ?? Promise.resolve();
  };

  /** Lets go of everything opened on the vault folder; what is needed again is reopened on use. */
  const release = () => {
    void closeStore();
    markers = undefined;
    void learner?.release(true);
    if (!options.sharedEngine) {
      void engine?.then((e) => e.close()).catch(() => undefined);
      engine = undefined;
    }
  };

  return {
    ready() {
      // Closed (a tenant let go of): nothing more is opened, a late usage is not recorded.
      if (closed) return false;
      const now = facts.present();
      if (now !== present) {
        present = now;
        if (now) warn(`lorecards gateway: the vault ${root} is there now: injecting cards`);
        else {
          release();
          warnMissing();
        }
      }
      return now;
    },
    async reach(window: number, books?: BookAsk): Promise<number> {
      // The matcher reads the current message and two turns (user + assistant) per level of depth
      // before it, the depth being the window or the largest scan_depth a card of the books asks for.
      return (await openedEngine()).reach(window, books);
    },
    async recall(turns: Turn[], opts: RecallOptions): Promise<RecallResult> {
      return (await openedEngine()).recall(turns, opts);
    },
    store: openedStore,
    engine: openedEngine,
    async markers() {
      // The store hands out the secret the hook uses too, made anew if its file was deleted: asked
      // again once the watcher of its file says it changed (or cannot say).
      if (markers && secretFile !== undefined && !facts.secretChanged(secretFile)) return markers.markers;
      const secret = await (await openedStore()).markerSecret();
      if (options.state === undefined) {
        secretFile ??= secretPath(root);
        facts.secretRead(secretFile);
      }
      if (markers?.secret !== secret) markers = { secret, markers: markersFromSecret(secret) };
      return markers.markers;
    },
    async logHits(entries: HitEntry[]) {
      await (await openedStore()).appendHits(entries);
    },
    async guide(context: string) {
      const { vault } = await openedEngine();
      const { styleBrief, style } = options;
      const guide = facts.guide(vault.kinds);
      return blockOpening(vault, { styleBrief, style, context, warn, who: "lorecards gateway", guide });
    },
    now: options.now ?? Date.now,
    warn,
    ...(learner && { observe: learner.observe }),
    async close() {
      closed = true;
      facts.close();
      await learner?.release();
      if (!options.sharedEngine) void engine?.then((e) => e.close()).catch(() => undefined);
      await closeStore();
    },
  };
}
