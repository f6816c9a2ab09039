/**
 * vault/ owns the cards on disk: where the vault is, opening and initialising it, the lock, atomic
 * writes, reading/creating/updating/archiving cards, the persisted index that lets a fresh process
 * re-parse only the cards that changed, and the one rule for finding a card by name (`lookup.ts`). It never matches, renders or injects (match/, recall/), and it
 * never parses card text itself (card/ does). It never reads or writes through a symbolic link inside
 * the vault (`_links.ts`), and it removes the temp files a killed write left behind (`_temps.ts`). An
 * import a killed process left half done is settled before any other write or read (`_settle.ts`).
 * Every write records a version in the card's history (`history.ts`, `<vault>/.lorecards/history.db`),
 * which `revert.ts` goes back to and `as-of.ts` rebuilds a past vault from.
 */

export { type ParsedText, type Placement, type Progress, placeAll, type Removal } from "./_batch.ts";
export type { BatchRecord } from "./_batch-history.ts";
export { hasLeftovers, recoverImports } from "./_batch-recover.ts";
export type { KnownFile } from "./_compare.ts";
export { atomicCreate, atomicWrite, fsyncDir, randomHex } from "./_fs.ts";
export type { IndexRows } from "./_index-rows.ts";
export { findLinks, linkBelow, readNoFollow, stateIn, type VaultLink } from "./_links.ts";
export { settleImports, withSettledLock } from "./_settle.ts";
export { type StagedFile, Writers } from "./_stage-writers.ts";
export { syncsAtOnce, syncWritten } from "./_sync-fs.ts";
export { removeStaleTemps, sweepVaultTemps } from "./_temps.ts";
export { type ArchivedCard, archiveCard, listArchived, restoreCard } from "./archive.ts";
export { type AsOfPoint, type AsOfVault, cardTextAt, parseAsOf, vaultAsOf } from "./as-of.ts";
export {
  cardsInBooks,
  type HeldCard,
  heldBy,
  openBookOf,
  otherBooks,
  saidWhereHeld,
} from "./book-cards.ts";
export {
  BOOK_FILE,
  BOOKS_DIR,
  type BookInfo,
  BookShelf,
  bookNameOf,
  bookNameProblem,
  bookRoot,
  booksDir,
  KEPT_CARD_FILES,
  MAIN_BOOK,
  parseBookFile,
  readBooks,
  writeBookFile,
} from "./books.ts";
export { type BulkChange, type BulkResult, type BulkTarget, bulkChange } from "./bulk.ts";
export {
  createCard,
  findCard,
  readCard,
  updateCard,
  updateRecent,
  updateSection,
  type WriteOptions,
} from "./cards.ts";
export {
  FULL_CHECK_MS,
  type IndexChanges,
  indexPath,
  indexStale,
  type LoadIndexOptions,
  loadIndex,
  type VaultIndex,
} from "./catalog.ts";
export { type Census, type SkippedFile, vaultCensus } from "./census.ts";
export { GUIDE_FILE, readGuide, STARTER_GUIDE } from "./guide.ts";
export {
  type Action,
  HISTORY_CAP,
  type HistoryOptions,
  historyNames,
  importedFrom,
  type KeptStep,
  readHistory,
  readStep,
  readSteps,
  readVersion,
  type StepAction,
  type StepRow,
  type VersionRow,
  versionAt,
  WRITERS,
  type Writer,
} from "./history.ts";
export { findHistoryCard, type HistoryCard } from "./history-card.ts";
export {
  IDLE_MS,
  keeperPid,
  type RunningKeeper,
  runKeeper,
  STAT_ALL_MAX,
  syncWithKeeper,
} from "./keeper.ts";
export { acquireLock, type LockOptions, lockPath, tryLock, withLock } from "./lock.ts";
export {
  CardLookup,
  indexLookup,
  type LookupOptions,
  lookupIn,
  type NamedCards,
  type RefTarget,
  refTarget,
} from "./lookup.ts";
export { markdownFiles } from "./markdown-files.ts";
export { exampleIds, initVault, type OpenOptions, openVault } from "./open.ts";
export { ARCHIVE_DIR, cardPath, resolveVaultPath, STATE_DIR, type Vault } from "./paths.ts";
export { type Reverted, revertCard } from "./revert.ts";
export {
  type PriorityCap,
  parseSettings,
  REACHES,
  type Reach,
  SETTINGS_FILE,
  SettingsFile,
  type VaultSettings,
} from "./settings.ts";
export { recoverSwaps, stagedIn, swapFolder, swapIn } from "./swap.ts";
export { type Undone, undoStep } from "./undo.ts";
export { describeVersion, type Hunk, type VersionInfo, versionDiff } from "./version-view.ts";
