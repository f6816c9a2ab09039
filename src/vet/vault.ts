/**
 * The write checks (rules.ts) run against a vault, as a writer calls them just before it writes: the
 * text that would be written is parsed the way the vault reads cards back, and checked against the
 * vault's other cards (its index) and the caps in its settings.yaml. A refused write throws here, so
 * nothing reaches the disk. Like the MCP server's taken-name check, this runs before the vault lock is
 * taken: two writers racing for the last place under a cap can both get it (README "Write checks").
 */
import path from "node:path";
import { kindByName, parseCard, serializeCard } from "../card/index.ts";
import type { Card, CardDraft, CardMeta } from "../card/types.ts";
import {
  cardPath,
  loadIndex,
  type PriorityCap,
  parseSettings,
  readNoFollow,
  SETTINGS_FILE,
  type Vault,
} from "../vault/index.ts";
import { allowedWrite, checkImport, checkWrite, type ImportWarning, type WriteWarning } from "./rules.ts";

/** The caps of the vault's settings.yaml; undefined (the defaults) when it sets none or has no file. */
export function vaultCaps(vault: Vault): PriorityCap[] | undefined {
  let text: string;
  try {
    text = readNoFollow(vault, path.join(vault.root, SETTINGS_FILE));
  } catch {
    return undefined;
  }
  return parseSettings(text).settings.priorityCaps;
}

function parsed(vault: Vault, kind: string, key: string, text: string): Card {
  const def = kindByName(vault.kinds, kind);
  const rel = def.dir === "" ? `${key}.md` : `${def.dir}/${key}.md`;
  return parseCard(text, { kind: def.name, key, path: rel, kinds: vault.kinds });
}

/** Check a new card before `createCard`: its warnings, or a thrown refusal. */
export function vetCreate(vault: Vault, draft: CardDraft): WriteWarning[] {
  const next = parsed(vault, draft.kind, draft.key, serializeCard(draft));
  const verdict = checkWrite(next, { others: loadIndex(vault).cards, caps: vaultCaps(vault) });
  return allowedWrite(next, verdict);
}

/**
 * Check an update before `updateCard` / `updateRecent`: `change` is what the vault will do to the file's
 * text. A card that cannot be read is left to the write, which says why.
 */
export function vetUpdate(
  vault: Vault,
  kind: string,
  key: string,
  change: (text: string) => string,
): WriteWarning[] {
  let text: string;
  try {
    text = readNoFollow(vault, cardPath(vault, kind, key));
  } catch {
    return [];
  }
  const before = parsed(vault, kind, key, text);
  const next = parsed(vault, kind, key, change(text));
  const verdict = checkWrite(next, { before, others: loadIndex(vault).cards, caps: vaultCaps(vault) });
  return allowedWrite(next, verdict);
}

/**
 * The warnings of an import that wrote `written` (kind/key ids), given `all` the cards of the vault it
 * left (its index, brought up to date). The book is already in by then: a vault whose settings cannot
 * be read now costs the warnings, never the import.
 */
export function vetImport(
  vault: Vault,
  written: ReadonlySet<string>,
  all: readonly CardMeta[],
): ImportWarning[] {
  if (written.size === 0) return [];
  try {
    const cards = all.filter((c) => written.has(`${c.kind}/${c.key}`));
    return checkImport(cards, all, vaultCaps(vault));
  } catch {
    return [];
  }
}
