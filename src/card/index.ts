/**
 * card/ owns the card model: safe parsing and serializing of one Markdown file with YAML frontmatter
 * (one frontmatter path, _frontmatter.ts; `yaml` or Bun's YAML behind it), forgiving field rules, `## sections` and private sections,
 * the kind table and `kinds.yaml`, which file names are legal keys, a card's lorebook rules (rules.ts,
 * read from its frontmatter and its V3 decorators: decorators.ts), and a card's JSON shapes (json.ts).
 * It is pure except for reading `kinds.yaml`; it never walks, writes or locks a vault (that is vault/).
 */

export { KNOWN_FIELDS } from "./_fields.ts";
export { locateFrontmatter, normalizeText } from "./_frontmatter.ts";
export { LOREBOOK_FIELDS, type LorebookField, ruleFieldProblem } from "./_rule-fields.ts";
export { wordsOfLine } from "./_values.ts";
export {
  alwaysOnWarning,
  type DeclaredSize,
  declaredSize,
  declaredWarning,
  estimateTokens,
} from "./declared.ts";
export { type DecoratorReading, NOT_APPLICABLE, readDecorators, splitDecorators } from "./decorators.ts";
export {
  brokenSummary,
  byKindThenTitle,
  cardDocument,
  cardFields,
  cardForm,
  cardSummary,
  type DocumentOptions,
  rulesJson,
  type SummaryOptions,
  secondaryJson,
} from "./json.ts";
export { keyFromTitle, keyProblem, numberedKey, pathKeyProblem, validateKey } from "./key.ts";
export {
  ARCHIVE_DIR,
  BOOKS_DIR,
  cardAt,
  defaultKinds,
  findKind,
  isPrivateSection,
  KINDS_FILE,
  kindByName,
  kindForDir,
  kindOfFolder,
  loadKindsConfig,
  parseKindsConfig,
  RESERVED_DIRS,
  STATE_DIR,
  skippedFolder,
} from "./kinds.ts";
export {
  assertCardLimits,
  charLength,
  cutChars,
  formatCount,
  MAX_LIST_WORDS,
  MAX_TERM_CHARS,
  MAX_TITLE_CHARS,
  textProblem,
} from "./limits.ts";
export { cardMeta, type ParseOptions, parseCard, publicText, publicTextOf } from "./parse.ts";
export {
  DEFAULT_RULES,
  isDefaultRules,
  POSITIONS,
  type RuleChanges,
  rulesChanges,
  rulesOf,
  rulesWith,
} from "./rules.ts";
export {
  type CardEdit,
  replaceSection,
  serializeCard,
  serializeParsedCard,
  setFields,
  updateCardText,
} from "./serialize.ts";
export type {
  BrokenCard,
  Card,
  CardDraft,
  CardMeta,
  CardPlacement,
  CardRules,
  KindDef,
  KindsConfig,
  Policy,
  PromptRole,
  Secondary,
  Section,
} from "./types.ts";
