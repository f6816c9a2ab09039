/**
 * Style memory's settings as one book holds them: the `style:` mapping of the vault's settings.yaml
 * (stat'ed before each use, read again only when it changed, so a running gateway follows edits) under
 * the environment's values the surface passed in, and the rules they make (settings.ts, rules.ts).
 */
import path from "node:path";
import { readPlain } from "../plain-file.ts";
import { SETTINGS_FILE } from "../vault/index.ts";
import type { Rules } from "./rules.ts";
import {
  type Resolved,
  resolveStyleSettings,
  rulesOf,
  type StyleSettings,
  styleSettingsIn,
} from "./settings.ts";
import { dictionaryStamp } from "./vault-dictionary.ts";

export class StyleSettingsFile {
  private cache?: { stamp: string; resolved: Resolved; rules: Rules };

  constructor(
    private readonly vaultRoot: string,
    private readonly fromEnv: Partial<StyleSettings> = {},
  ) {}

  resolved(): Resolved {
    return this.current().resolved;
  }

  rules(): Rules {
    return this.current().rules;
  }

  private current(): NonNullable<StyleSettingsFile["cache"]> {
    const file = path.join(this.vaultRoot, SETTINGS_FILE);
    const stamp = dictionaryStamp(file);
    if (this.cache?.stamp !== stamp) {
      let text = "";
      try {
        if (stamp !== "none") text = readPlain(file);
      } catch {
        // Unreadable: the defaults (recall says what is wrong with the file).
      }
      const resolved = resolveStyleSettings(styleSettingsIn(text), { settings: this.fromEnv, problems: [] });
      this.cache = { stamp, resolved, rules: rulesOf(resolved.settings) };
    }
    return this.cache;
  }
}
