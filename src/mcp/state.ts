/**
 * What the MCP server keeps in the vault's state (the Store): an agent's adoptions (`read_card` with an
 * index block's ids, adoption.ts) and a session's lore switch (`set_lore`, lore.ts). The store is opened
 * on the first of them, never for a plain read or write of a card, and one that could not be opened is
 * tried again on the next call.
 */
import type { LoreSwitch } from "../defaults.ts";
import { type AdoptionOutcome, openStore, type Store, stateUrl } from "../state/index.ts";
import type { Vault } from "../vault/index.ts";
import { homeOf, type ServedBook } from "./books.ts";

export interface McpState {
  recordAdoption(adoption: { session: string; query: string; card: string }): Promise<AdoptionOutcome>;
  /** Sets a session's lore switch, or with null forgets it. */
  setLore(session: string, lore: LoreSwitch | null): Promise<void>;
  close(): Promise<void>;
}

/** The state at `url` (the vault's state.db by default), opened on first use. */
export function storeState(url: string, now: () => number = Date.now): McpState {
  let store: Promise<Store> | undefined;
  const opened = async (): Promise<Store> => {
    store ??= openStore(url);
    return store.catch((err) => {
      store = undefined; // tried again on the next call
      throw err;
    });
  };
  return {
    recordAdoption: async (adoption) => (await opened()).recordAdoption({ ...adoption, at: now() }),
    setLore: async (session, lore) => (await opened()).setLore(session, lore, now()),
    async close() {
      const was = store;
      store = undefined;
      if (was) await (await was.catch(() => undefined))?.close();
    },
  };
}

/** The vault's own state.db, whatever book of it the server serves. */
export function vaultState(vault: Vault, book?: ServedBook): McpState {
  return storeState(stateUrl(homeOf(vault, book)));
}
