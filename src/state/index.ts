/**
 * Per-vault state behind one seam, the Store (types.ts): the conversation store (dedupe ledger, replay
 * records, turn clocks), the hit log and the secret our injection markers derive from. Opened with
 * `openStore(url)`: `sqlite:<vault>/.lorecards/state.db` by default (state.db, with `hits.jsonl` and
 * `marker-secret` beside it), `memory:` for a store that lives in this process only, `postgres://…`
 * for a database several processes share (loaded only when named). The Store is written once
 * (`_domain.ts`) over a narrow driver per backend (`_driver.ts`), its rules once (`_rules.ts`,
 * `_turn-rules.ts`, `_recall-rules.ts`), and one contract suite checks every backend. Nothing here
 * decides what to inject or reads cards; it only remembers. State that cannot be read is moved aside
 * and rebuilt empty rather than stopping a request; a server that does not answer costs a bounded wait.
 * Turn records and per-day totals say what each turn added and what the provider billed for it;
 * stats.ts turns them into totals (pure), report.ts into a report. Index recalls and the adoptions an
 * agent reports (`read_card` with a block's ids) say which cards an index listed and which were
 * opened; card-health.ts classes each card from them (pure).
 */

export { dropRecallEvents } from "./_sqlite-recalls.ts";
export {
  type CardHealth,
  cardHealth,
  classify,
  HEALTH_CLASSES,
  HEALTH_RULES,
  type HealthClass,
  type HealthReport,
  type HealthRules,
  healthSince,
} from "./card-health.ts";
export { type HitEntry, type HitSource, normalizeHit } from "./hits.ts";
export {
  type ConversationReport,
  type DayReport,
  type Figures,
  type StatsReport,
  summarize,
  type TurnReport,
  turnReports,
  windowOf,
} from "./report.ts";
export { hitsPath, secretPath, statePath } from "./sqlite.ts";
export { blameFor, MIN_CACHEABLE, WEIGHTS, weightsFor } from "./stats.ts";
export { openStore, type StoreOptions, stateUrl } from "./store.ts";
export {
  type AdoptionOutcome,
  type AdoptionRecord,
  type CardRef,
  type CardUsage,
  type Conversation,
  type ConversationChange,
  type ConversationSummary,
  type DayTotals,
  type Injection,
  LIMITS,
  type Limits,
  type Placement,
  type RecallRecord,
  type ReplayRecord,
  type SentBlock,
  type Store,
  type StoredRecall,
  type Tier,
  type TimedRecord,
  type TimedRecords,
  type TurnRecord,
  type Usage,
  type UsageWindow,
} from "./types.ts";
