/**
 * The pipeline's dependencies backed by a vault on disk: the recall engine, the state store, the
 * marker secret and the hit log. Each is opened on first use; an open that fails is retried on the
 * next request, so a gateway started before its vault is readable begins injecting once it is.
 */

import type { Markers } from "../inject/index.ts";
import { markersFromSecret } from "../inject/index.ts";
import { type EngineOptions, openEngine } from "../recall/index.ts";
import type { RecallOptions, RecallResult, Turn } from "../recall/types.ts";
import { appendHits, type HitEntry, markerSecret, openSqliteStore, type Store } from "../state/index.ts";
import type { PipelineDeps } from "./pipeline.ts";

type Engine = Awaited<ReturnType<typeof openEngine>>;

export interface VaultDepsOptions {
  vaultRoot: string;
  /** Passed to the engine (watch is on by default: a gateway is long-running). */
  engine?: EngineOptions;
  /**
   * An engine someone else opened and owns (the editor, in one process with the gateway): its
   * writes invalidate it at once, so a card saved in the editor is injected on the next request.
   */
  sharedEngine?: Engine;
  warn?: (line: string) => void;
  now?: () => number;
}

export interface VaultDeps extends PipelineDeps {
  close(): void;
}

export function vaultDeps(options: VaultDepsOptions): VaultDeps {
  const root = options.vaultRoot;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let engine: Promise<Engine> | undefined = options.sharedEngine && Promise.resolve(options.sharedEngine);
  let store: Store | undefined;
  let markers: Markers | undefined;

  const openedEngine = (): Promise<Engine> => {
    if (!engine) {
      const opening = openEngine(root, { watch: true, ...options.engine });
      engine = opening;
      opening.catch(() => {
        if (engine === opening) engine = undefined;
      });
    }
    return engine;
  };

  return {
    async recall(turns: Turn[], opts: RecallOptions): Promise<RecallResult> {
      return (await openedEngine()).recall(turns, opts);
    },
    store() {
      store ??= openSqliteStore(root, { warn });
      return store;
    },
    markers() {
      markers ??= markersFromSecret(markerSecret(root));
      return markers;
    },
    logHits(entries: HitEntry[]) {
      appendHits(root, entries);
    },
    now: options.now ?? Date.now,
    warn,
    close() {
      store?.close();
      store = undefined;
      if (!options.sharedEngine) void engine?.then((e) => e.close()).catch(() => undefined);
    },
  };
}
