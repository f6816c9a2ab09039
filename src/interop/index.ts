/**
 * interop/ trades lorebooks with the outside world: SillyTavern World Info (and the RisuAI, NovelAI,
 * Agnai and KoboldAI books its import converts), Character Card V1/V2/V3 (JSON, PNG, CHARX) and the
 * standalone `lorebook_v3` export. The mapping itself is pure (bytes or
 * JSON in → CardDraft[] out; cards in → bytes out); `importBook` / `exportBook` / `repairImports` are
 * the thin layer that reads and writes a vault through vault/. It never matches, injects, or writes a
 * card outside an import or a repair of one, and no export ever carries a private section.
 */

export { type CardVersion, detectVersion } from "./_card.ts";
export { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./_charx.ts";
export {
  type ExportOptions,
  exportBook,
  type ImportOptions,
  type ImportResult,
  importBook,
} from "./_disk.ts";
export { cardToExport, type ExportCard, entriesToDrafts, statedRules, uniqueKey } from "./_draft.ts";
export {
  type BaseCardFile,
  EXPORT_FORMATS,
  type ExportFile,
  type ExportFormat,
  type RenderOptions,
  renderBook,
} from "./_export.ts";
export { type BookImported, type IntoBookOptions, importIntoBook, ownBookOf } from "./_into-book.ts";
export { type BookEntry, type EntryRules, type Mapped, plainMapped } from "./_model.ts";
export { type ParsedBook, type ParseOptions, parseBook, type SourceFormat } from "./_parse.ts";
export { type RepairResult, repairImports, type StaleImport, staleImport, staleImports } from "./_repair.ts";
export type { SkippedEntry } from "./_st.ts";
