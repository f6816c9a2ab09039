/**
 * Per-vault state behind one seam, the Store (types.ts): the conversation store (dedupe ledger, replay
 * records, turn clocks), the hit log and the secret our injection markers derive from. Opened with
 * `openStore(url)`: `sqlite:<vault>/.lorecards/state.db` by default (state.db, with `hits.jsonl` and
 * `marker-secret` beside it), `memory:` for a store that lives in this process only. The rules every
 * backend keeps are written once (`_rules.ts`) and checked by one contract suite. Nothing here decides
 * what to inject or reads cards; it only remembers. State that cannot be read is moved aside and rebuilt
 * empty rather than stopping a request.
 */

export { type HitEntry, type HitSource, normalizeHit } from "./hits.ts";
export { hitsPath, secretPath, statePath } from "./sqlite.ts";
export { openStore, type StoreOptions, stateUrl } from "./store.ts";
export {
  type CardRef,
  type Conversation,
  type ConversationChange,
  type Injection,
  LIMITS,
  type Limits,
  type Placement,
  type ReplayRecord,
  type Store,
  type TimedRecord,
  type TimedRecords,
} from "./types.ts";
