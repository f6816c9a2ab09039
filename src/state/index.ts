/**
 * Per-vault state under `<vault>/.lorecards/`: the conversation store (dedupe ledger, replay records,
 * turn clocks; bun:sqlite in `state.db`), the hit log (`hits.jsonl`) and the secret our injection
 * markers derive from. Nothing here decides what to inject or reads cards; it only remembers. State that
 * cannot be read is moved aside and rebuilt empty rather than stopping a request.
 */

export { appendHits, type HitEntry, type HitSource, hitsPath, readRecentHits } from "./hits.ts";
export { markerSecret, secretPath } from "./secret.ts";
export { openSqliteStore, type SqliteStoreOptions, statePath } from "./sqlite.ts";
export {
  type CardRef,
  type Conversation,
  type ConversationChange,
  type Injection,
  LIMITS,
  type Placement,
  type ReplayRecord,
  type Store,
} from "./types.ts";
