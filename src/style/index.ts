/**
 * style/ owns style memory: how the person talks, never what they said. It reads each of the
 * person's own messages for signals (a built-in dictionary of English and Chinese slang,
 * catchphrases, laughter, addresses, emoticons and dialect markers, the vault's own
 * `style-dictionary.yaml`, emoji by Unicode property, a few measured traits of voice), keeps them as
 * habits with counts, times, hashed conversation ids and one sanitized example of at most 60
 * characters in `<vault>/.lorecards/style.db`, moves them through candidate → active → archived →
 * deleted on the injected clock, and answers with a short brief in fixed sections whose revision
 * moves only when its content does. Agents add hints (one sighting each, never past the two-
 * conversation gate) and collaboration preferences (labels, diagnoses and private facts refused).
 *
 * It never reads env or argv (the surfaces pass the clock in), never touches state.db, and never
 * keeps message text beyond the one example. Surfaces call `openStyle(vault)` and the StyleBook.
 *
 * Changes from the seam in the contract (types.ts has the shapes): `StyleOptions` also takes
 * `warn`; `HintResult` is `{status: "recorded", habit} | {status: "paused"} | {status: "refused",
 * reason}` (a refusal is an answer, not a thrown error; only I/O and unknown ids throw LoreError);
 * `pin`, `unpin` and `forget` take an id or a signal only one habit has (not_found, or invalid_input
 * when several share it); the book has `dictionary()` (sizes and the vault file's problems); a brief
 * item has a short `label`; pinning makes a candidate active, being the person's own choice (through
 * the CLI, the editor or an admin tool; a hint never can); preferences pass the same gate as habits.
 */
import fs from "node:fs";
import { stateIn } from "../vault/index.ts";
import { checkVaultRoot } from "../vault/root.ts";
import { Book } from "./book.ts";
import { STYLE_INBOX, STYLE_INBOX_ASIDE } from "./files.ts";
import { noteMessage } from "./note.ts";
import type { StyleBook, StyleOptions } from "./types.ts";

export { EXAMPLE_MAX, sanitize } from "../sanitize.ts";
export { stylePath } from "./_db.ts";
export type { InitResult, InitState } from "./_seed.ts";
export { STYLE_SIDE_FILES } from "./files.ts";
export { RULES } from "./rules.ts";
export type { StyleScore } from "./score.ts";
export {
  describeStyleSettings,
  type Resolved as ResolvedStyleSettings,
  resolveStyleSettings,
  STYLE_DEFAULTS,
  STYLE_SETTINGS,
  type StyleSettings,
  styleSettingsFromEnv,
  styleSettingsIn,
} from "./settings.ts";
export {
  type BriefAnswer,
  type BriefItem,
  type BriefSection,
  type BriefSectionId,
  CONTEXT_TAGS,
  type ContextTag,
  type DictionaryInfo,
  type DistillInput,
  type DistillResult,
  HABIT_KINDS,
  HABIT_STATES,
  type Habit,
  type HabitKind,
  type HabitSource,
  type HabitState,
  HINT_KINDS,
  type HintResult,
  type Strength,
  type StyleBook,
  type StyleOptions,
} from "./types.ts";
export { VAULT_DICTIONARY } from "./vault-dictionary.ts";

/** The style book of the vault at `vaultRoot` (which must exist); style.db is made on first write. */
export async function openStyle(vaultRoot: string, options: StyleOptions = {}): Promise<StyleBook> {
  checkVaultRoot(vaultRoot);
  return new Book(vaultRoot, options);
}

/**
 * One message of the person's own, read now and learned by the next use of the vault's style memory
 * (note.ts): what the hook does with a prompt, at no SQLite cost. Every reader sees it learned.
 */
export async function noteStyle(
  vaultRoot: string,
  options: StyleOptions,
  conversation: string,
  text: string,
): Promise<void> {
  checkVaultRoot(vaultRoot);
  return noteMessage(vaultRoot, options, conversation, text);
}

/**
 * Learns what waits in the inbox now (a backup copies style.db as it is, so it folds first); opens
 * nothing when there is no inbox.
 */
export async function learnWaiting(vaultRoot: string, options: StyleOptions = {}): Promise<void> {
  if (![STYLE_INBOX, STYLE_INBOX_ASIDE].some((f) => fs.existsSync(stateIn(vaultRoot, f)))) return;
  const book = await openStyle(vaultRoot, options);
  try {
    await book.learning();
  } finally {
    await book.close();
  }
}
