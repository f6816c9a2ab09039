/**
 * The vault's own settings: a `settings.yaml` in the vault root, written by its owner (like
 * kinds.yaml), read here for every surface (recall through its engine, the write checks, style memory's
 * switch, the hook's boot block, `check`), through the one reader of the vault's YAML files. Its keys:
 *
 *   char: Seraphina        the name for {{char}}, <char>, <bot>
 *   user: Ann              the name for {{user}}, <user>
 *   budget: 1200           the automatic half's budget in characters (default 800; 0 = declared only)
 *   budget_tokens: 1200    its budget in tokens (alone, it is the budget; with `budget`, both apply)
 *   reach: one-hop         or `named`
 *   lore: auto             the lore switch: `declared` (always-on and asked-for cards only) or `none`
 *   priority_caps: {2: 5, 1: 15}   the write checks' caps (vet/rules.ts); `false` turns them off
 *   learn: false           style memory learns nothing (style-surface/, README "Style memory")
 *   style: {…}             style memory's settings (style/settings.ts reads them)
 *   boot_recall: false     the hook's SessionStart recalls nothing from the working folder (hook/boot.ts)
 *
 * A flag or request field given on a surface wins over the file (recall/settings.ts for recall's
 * options), which wins over the defaults. The
 * file never stops recall: an unknown key, a value of the wrong kind, or YAML that does not parse is
 * ignored with a warning (said once per version of the file). The file is stat'ed on each recall and
 * read again only when it changed, so a running gateway follows edits; `yaml` is loaded only when
 * there is a file to read, so a cold hook without one pays nothing.
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import { LORE_SWITCHES, type LoreSwitch, REACHES, type Reach } from "../defaults.ts";
import { describeError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { yamlData } from "../yaml-data.ts";

export const SETTINGS_FILE = "settings.yaml";

export { REACHES, type Reach };

export interface VaultSettings {
  char?: string;
  user?: string;
  budget?: number;
  budgetTokens?: number;
  reach?: Reach;
  lore?: LoreSwitch;
  /** The write checks' priority caps, highest priority first; [] = no caps; absent = the defaults. */
  priorityCaps?: PriorityCap[];
  /** `false`: the gateway and the hook hand no message to style memory (style-surface/). */
  learn?: boolean;
  /** `false`: the hook's boot block recalls nothing from the working folder's and repository's names. */
  bootRecall?: boolean;
}

/** At most `cap` enabled cards at `priority` or above it (up to the next higher capped priority). */
export interface PriorityCap {
  priority: number;
  cap: number;
}

/**
 * `priority_caps`: a mapping of priority → most cards (`{2: 5, 1: 15}`), or `false` for none; null
 * when the value is not one (the whole setting is then ignored, so a typo never half-applies).
 */
function priorityCaps(value: unknown): PriorityCap[] | null {
  if (value === false) return [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const caps: PriorityCap[] = [];
  for (const [priority, cap] of Object.entries(value)) {
    if (!/^-?\d+$/.test(priority.trim())) return null;
    if (typeof cap !== "number" || !Number.isInteger(cap) || cap < 0) return null;
    caps.push({ priority: Number(priority), cap });
  }
  return caps.sort((a, b) => b.priority - a.priority);
}

/** Keys people write for the scan window, which is no vault setting (the warning says where it is). */
const WINDOW_WORDS = ["scan_depth", "scan_messages", "window", "scan_window"];

/** The settings a text holds, and what was ignored in it (one line each, naming the file). */
export function parseSettings(text: string): { settings: VaultSettings; warnings: string[] } {
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(`${SETTINGS_FILE}: ${message}; ignored`);
  let data: unknown;
  try {
    data = yamlData(text);
  } catch (err) {
    warn(`not valid YAML (${describeError(err).split("\n")[0]})`);
    return { settings: {}, warnings };
  }
  if (data === null || data === undefined) return { settings: {}, warnings };
  if (typeof data !== "object" || Array.isArray(data)) {
    warn("the file must be a mapping of setting: value");
    return { settings: {}, warnings };
  }
  const settings: VaultSettings = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === "char" || key === "user") {
      if (typeof value === "string" || typeof value === "number") settings[key] = String(value).trim();
      else if (value !== null) warn(`${key} must be a name`);
    } else if (key === "budget_tokens" || key === "budget") {
      const name = key === "budget" ? "budget" : "budgetTokens";
      if (typeof value === "number" && Number.isInteger(value) && value >= 0) settings[name] = value;
      else if (value !== null) warn(`${key} must be a whole number ≥ 0`);
    } else if (key === "reach") {
      if ((REACHES as readonly unknown[]).includes(value)) settings.reach = value as Reach;
      else if (value !== null) warn(`reach must be ${REACHES.join(" or ")}`);
    } else if (key === "lore") {
      if ((LORE_SWITCHES as readonly unknown[]).includes(value)) settings.lore = value as LoreSwitch;
      else if (value !== null) warn(`lore must be ${LORE_SWITCHES.join(", ")}`);
    } else if (key === "learn" || key === "boot_recall") {
      const name = key === "learn" ? "learn" : "bootRecall";
      if (typeof value === "boolean") settings[name] = value;
      else if (value !== null) warn(`${key} must be true or false`);
    } else if (key === "style") {
      // Style memory's own settings: style/settings.ts reads and checks them.
    } else if (key === "priority_caps") {
      const caps = priorityCaps(value);
      if (caps !== null) settings.priorityCaps = caps;
      else if (value !== null)
        warn("priority_caps must map whole priorities to whole counts ≥ 0, or be false");
    } else if (WINDOW_WORDS.includes(key)) {
      warn(
        `there is no vault-wide "${key}": the scan window is each surface's (--scan-depth of try and the hook, ` +
          "--window of the gateway) or each card's (scan_depth in turns, scan_messages in messages)",
      );
    } else {
      warn(`unknown setting "${key}"`);
    }
  }
  return { settings, warnings };
}

/**
 * The settings file of one vault, read again only when its mtime or size changed. A server checks
 * that at most every `recheckMs` (a stat on every request was a sixth of a lookup), and at once when
 * its watcher names the file (`invalidate`).
 */
export class SettingsFile {
  private stamp = "";
  private settings: VaultSettings = {};
  private checked = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly root: string,
    private readonly warn: (line: string) => void,
    private readonly recheckMs = 0,
  ) {}

  invalidate(): void {
    this.checked = Number.NEGATIVE_INFINITY;
  }

  current(): VaultSettings {
    const now = performance.now();
    if (now - this.checked < this.recheckMs) return this.settings;
    this.checked = now;
    const file = join(this.root, SETTINGS_FILE);
    const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
    const stamp = stat ? `${stat.mtimeNs}:${stat.size}` : "";
    if (stamp === this.stamp) return this.settings;
    this.stamp = stamp;
    this.settings = {};
    if (!stat) return this.settings;
    let text: string;
    try {
      text = readPlain(file, { name: SETTINGS_FILE });
    } catch (err) {
      this.warn(`lorecards: ${SETTINGS_FILE} could not be read (${describeError(err)}); ignored`);
      return this.settings;
    }
    const parsed = parseSettings(text);
    for (const line of parsed.warnings) this.warn(`lorecards: ${line}`);
    this.settings = parsed.settings;
    return this.settings;
  }
}
