/**
 * What a vault's default store holds, read through the store seam (src/state/) for assertions: the
 * markers its secret gives, the newest hits, a handle to read conversations with.
 */

import { type Markers, markersFromSecret } from "../../src/inject/index.ts";
import { type HitEntry, openStore, type Store, stateUrl } from "../../src/state/index.ts";

export function vaultStore(vault: string): Promise<Store> {
  return openStore(stateUrl(vault), { warn: () => {} });
}

async function using<T>(vault: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await vaultStore(vault);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function markersOf(vault: string): Promise<Markers> {
  return using(vault, async (s) => markersFromSecret(await s.markerSecret()));
}

export function recentHitsOf(vault: string, limit: number): Promise<HitEntry[]> {
  return using(vault, (s) => s.recentHits(limit));
}
