/**
 * The whole check of one vault, as `lorecards check` and `GET /api/checkup` both run it: the index's
 * cards through `checkCards`, with what only the card files can tell (their injected text, for macros
 * with no name; their kept `st:` / `card:` blocks, for cards imported with the old secondary-word
 * mapping, which `lorecards repair` fixes), the vault's settings.yaml warnings, and every file of the
 * vault accounted for (vault/ `vaultCensus`: what is no card, and why). Reading every card file is what
 * this costs; the check is run by hand, never on a prompt's path.
 */
import { alwaysOnWarning, publicTextOf } from "../card/index.ts";
import type { MacroNames as Names } from "../card/macros.ts";
import type { Card, CardMeta } from "../card/types.ts";
import { gcTick } from "../gc-tick.ts";
import { staleImports } from "../interop/index.ts";
import {
  resolveStyleSettings,
  type SettingsRead,
  type Resolved as StyleSettings,
  styleSettingsIn,
} from "../style/settings.ts";
import {
  type Census,
  findLinks,
  loadIndex,
  parseSettings,
  readCard,
  readNoFollow,
  SETTINGS_FILE,
  type Vault,
  vaultCensus,
} from "../vault/index.ts";
import { checkCards, type Finding } from "./index.ts";

export interface VaultCheck {
  cards: number;
  broken: number;
  errors: number;
  warnings: number;
  findings: Finding[];
  /** Style memory's settings in force and where each came from (settings.yaml, the environment). */
  style: Omit<StyleSettings, "problems">;
  /** Every file of the vault accounted for: card files, settings, and what is skipped and why. */
  files: Census;
}

/**
 * Check `vault`; `names` are the {{char}} / {{user}} names given on the command line, over
 * settings.yaml's; `styleEnv` style memory's settings from the environment (cli/ reads it).
 */
export function checkVault(
  vault: Vault,
  names: Names = {},
  styleEnv: SettingsRead = { settings: {}, problems: [] },
  progress?: (done: number, total: number) => void,
): VaultCheck {
  const index = loadIndex(vault);
  const settings = settingsOf(vault);
  const style = resolveStyleSettings(styleSettingsIn(settings.raw), styleEnv);
  const tick = gcTick();
  let read = 0;
  const text = (card: CardMeta): string | undefined => {
    tick();
    progress?.(++read, Math.max(read, index.cards.length));
    try {
      return publicTextOf(readNoFollow(vault, `${vault.root}/${card.path}`), vault.kinds);
    } catch {
      return undefined;
    }
  };
  const findings = checkCards(index.cards, index.broken, index.warnings, findLinks(vault), {
    kinds: vault.kinds,
    text,
    names: { char: names.char ?? settings.names.char, user: names.user ?? settings.names.user },
  });
  const large = alwaysOnWarning(index.cards, text);
  if (large)
    findings.push({
      severity: "warning",
      code: "large_declared",
      card: "(always-on cards)",
      path: "",
      detail: large,
    });
  for (const w of settings.warnings) {
    findings.push({
      severity: "warning",
      code: "bad_setting",
      card: SETTINGS_FILE,
      path: SETTINGS_FILE,
      detail: w,
    });
  }
  for (const problem of style.problems) {
    // "$STYLE_MEMORY_…: …" names its variable; the rest are the file's.
    const where = problem.startsWith("$") ? problem.slice(0, problem.indexOf(" ")) : SETTINGS_FILE;
    findings.push({ severity: "warning", code: "bad_setting", card: where, path: where, detail: problem });
  }
  for (const stale of staleImports(fullCards(vault, index.cards))) {
    findings.push({
      severity: "warning",
      code: "old_import",
      card: `${stale.kind}/${stale.key}`,
      path: stale.path,
      detail: `imported with the old lorebook mapping (${stale.changes.join("; ")}); run lorecards repair`,
    });
  }
  const errors = findings.filter((f) => f.severity === "error").length;
  return {
    cards: index.cards.length,
    broken: index.broken.length,
    errors,
    warnings: findings.length - errors,
    findings,
    style: { settings: style.settings, sources: style.sources },
    files: vaultCensus(vault),
  };
}

/**
 * A line that opens a block kept by an import (`st:`, `card:`). Only a file with one is parsed in
 * full: parsing every card of a 100k vault left some 400 MB for the collector. A body line may match
 * too; the parse decides.
 */
const KEPT_BLOCK = /^["']?(?:st|card)["']?[ \t]*:/m;

/** Cards that carry a block kept by an import (the only ones an old mapping can have touched), parsed. */
function fullCards(vault: Vault, cards: readonly CardMeta[]): Card[] {
  const out: Card[] = [];
  const tick = gcTick();
  for (const meta of cards) {
    tick();
    try {
      if (!KEPT_BLOCK.test(readNoFollow(vault, `${vault.root}/${meta.path}`))) continue;
      const card = readCard(vault, meta.kind, meta.key);
      if ("st" in card.frontmatter || "card" in card.frontmatter) out.push(card);
    } catch {
      // unreadable since the index was read: checkCards reports it next time
    }
  }
  return out;
}

function settingsOf(vault: Vault): { names: Names; warnings: string[]; raw: string } {
  let raw: string;
  try {
    raw = readNoFollow(vault, `${vault.root}/${SETTINGS_FILE}`);
  } catch {
    return { names: {}, warnings: [], raw: "" };
  }
  const { settings, warnings } = parseSettings(raw);
  return { names: { char: settings.char, user: settings.user }, warnings, raw };
}
