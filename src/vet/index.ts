/**
 * The write checks: card rules every writer applies before a card reaches the disk (README "Write
 * checks"): MCP `write_card`, the HTTP API's create and update (the editor), and imports. The rules
 * themselves are pure (rules.ts: priority caps, a card that can never fire, words worth fixing, with
 * the trigger heuristics `check` shares, terms.ts); vault.ts runs them against a vault as a writer calls
 * them. It reads the vault and its settings.yaml and never writes; a refusal is a thrown LoreError.
 */
export {
  allowedWrite,
  checkImport,
  checkWrite,
  DEFAULT_PRIORITY_CAPS,
  type ImportWarning,
  refusalError,
  type WriteCode,
  type WriteContext,
  type WriteVerdict,
  type WriteWarning,
} from "./rules.ts";
export { firesOnWords, genericTerm, type TermProblem, wordProblems } from "./terms.ts";
export { vaultCaps, vetCreate, vetImport, vetUpdate } from "./vault.ts";
