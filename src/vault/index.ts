/**
 * vault/ owns the cards on disk: where the vault is, opening and initialising it, the lock, atomic
 * writes, reading/creating/updating/archiving cards, the persisted index that lets a fresh process
 * re-parse only the cards that changed, and the one rule for finding a card by name (`lookup.ts`). It never matches, renders or injects (match/, recall/), and it
 * never parses card text itself (card/ does). It never reads or writes through a symbolic link inside
 * the vault (`_links.ts`), and it removes the temp files a killed write left behind (`_temps.ts`). An
 * import a killed process left half done is settled before any other write or read (`_settle.ts`).
 */

export { hasLeftovers, type Placement, type Progress, placeAll, recoverImports } from "./_batch.ts";
export { atomicWrite, randomHex } from "./_fs.ts";
export type { IndexRows } from "./_index-rows.ts";
export { findLinks, linkBelow, readNoFollow, type VaultLink } from "./_links.ts";
export { settleImports, withSettledLock } from "./_settle.ts";
export { sweepVaultTemps } from "./_temps.ts";
export { type ArchivedCard, archiveCard, listArchived, restoreCard } from "./archive.ts";
export { createCard, findCard, readCard, updateCard, updateRecent, type WriteOptions } from "./cards.ts";
export {
  FULL_CHECK_MS,
  type IndexChanges,
  indexPath,
  indexStale,
  type LoadIndexOptions,
  loadIndex,
  type VaultIndex,
} from "./catalog.ts";
export { GUIDE_FILE, readGuide, STARTER_GUIDE } from "./guide.ts";
export { acquireLock, type LockOptions, lockPath, withLock } from "./lock.ts";
export {
  CardLookup,
  indexLookup,
  type LookupOptions,
  lookupIn,
  type NamedCards,
  type RefTarget,
  refTarget,
} from "./lookup.ts";
export { initVault, type OpenOptions, openVault } from "./open.ts";
export { ARCHIVE_DIR, cardPath, resolveVaultPath, STATE_DIR, type Vault } from "./paths.ts";
