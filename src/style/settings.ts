/**
 * Style memory's settings: how many sightings make a habit active, how long each state lasts unseen,
 * how many lines the brief holds and how long an example may be. Each has a default (rules.ts), a key
 * under `style:` in the vault's settings.yaml, and an environment variable named as style-memory-mcp
 * names it, so a person coming from that tool keeps their configuration:
 *
 *   style:
 *     promote_count: 2          # $STYLE_MEMORY_MIN_PROMOTE_COUNT   sightings before a habit is active
 *     candidate_ttl_days: 30    # $STYLE_MEMORY_CANDIDATE_TTL_DAYS  a candidate unseen this long goes
 *     inactive_ttl_days: 180    # $STYLE_MEMORY_INACTIVE_TTL_DAYS   an active habit unseen this long is archived
 *     archive_ttl_days: 360     # $STYLE_MEMORY_ARCHIVE_TTL_DAYS    an archived habit unseen this long goes
 *     brief_items: 26           # $STYLE_MEMORY_MAX_BRIEF_ITEMS     lines of habits in the whole brief
 *     example_length: 60        # $STYLE_MEMORY_MAX_EXAMPLE_LEN     characters of a habit's one example
 *
 * The environment wins over the file, the file over the defaults (as a flag does elsewhere). A value
 * that is not one is ignored with a sentence naming where it was and what it must be; nothing here
 * ever stops learning. Pure: text and variables in, settings and problems out (the book reads the file).
 */
import { yamlData } from "../yaml-data.ts";
import { DAY, RULES, type Rules } from "./rules.ts";

export interface StyleSettings {
  promoteCount: number;
  candidateTtlDays: number;
  inactiveTtlDays: number;
  archiveTtlDays: number;
  briefItems: number;
  exampleLength: number;
}

export type StyleSettingName = keyof StyleSettings;

/** Where a setting's value came from: the default, settings.yaml, or an environment variable. */
export type SettingSource = "default" | "settings.yaml" | `$${string}`;

interface Row {
  name: StyleSettingName;
  key: string;
  env: string;
  min: number;
  max: number;
  /** What it does, for `check` and the docs. */
  what: string;
}

/** The settings, in the order `check` reports them. The bounds keep each one meaningful. */
export const STYLE_SETTINGS: readonly Row[] = [
  {
    name: "promoteCount",
    key: "promote_count",
    env: "STYLE_MEMORY_MIN_PROMOTE_COUNT",
    // Two: the gate also wants two conversations, so fewer sightings could never pass it anyway.
    min: 2,
    max: 1000,
    what: "sightings (in at least two conversations) before a habit is active",
  },
  {
    name: "candidateTtlDays",
    key: "candidate_ttl_days",
    env: "STYLE_MEMORY_CANDIDATE_TTL_DAYS",
    min: 1,
    max: 36_500,
    what: "days a candidate is kept unseen",
  },
  {
    name: "inactiveTtlDays",
    key: "inactive_ttl_days",
    env: "STYLE_MEMORY_INACTIVE_TTL_DAYS",
    min: 1,
    max: 36_500,
    what: "days an active habit stays active unseen before it is archived",
  },
  {
    name: "archiveTtlDays",
    key: "archive_ttl_days",
    env: "STYLE_MEMORY_ARCHIVE_TTL_DAYS",
    min: 2,
    max: 36_500,
    what: "days unseen after which an archived habit is deleted",
  },
  {
    name: "briefItems",
    key: "brief_items",
    env: "STYLE_MEMORY_MAX_BRIEF_ITEMS",
    min: 1,
    max: 200,
    what: "lines of habits in the whole brief (sections fill in their order)",
  },
  {
    name: "exampleLength",
    key: "example_length",
    env: "STYLE_MEMORY_MAX_EXAMPLE_LEN",
    min: 0,
    max: 200,
    what: "characters of the one example kept per habit (0: none)",
  },
];

/** The defaults, from the rules. */
export const STYLE_DEFAULTS: Readonly<StyleSettings> = Object.freeze({
  promoteCount: RULES.gateSightings,
  candidateTtlDays: RULES.candidateTtl / DAY,
  inactiveTtlDays: RULES.archiveAfter / DAY,
  archiveTtlDays: RULES.deleteAfter / DAY,
  briefItems: RULES.briefItems,
  exampleLength: RULES.exampleLength,
});

export interface SettingsRead {
  settings: Partial<StyleSettings>;
  /** One sentence per value ignored, naming where it was. */
  problems: string[];
}

function whole(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value);
  return undefined;
}

function checked(row: Row, value: unknown, where: string, problems: string[]): number | undefined {
  const n = whole(value);
  if (n !== undefined && n >= row.min && n <= row.max) return n;
  problems.push(
    `${where} must be a whole number from ${row.min} to ${row.max}, got ${JSON.stringify(value)}; ignored`,
  );
  return undefined;
}

/** The `style:` mapping of settings.yaml (absent or null: nothing set). */
export function styleSettingsOf(value: unknown): SettingsRead {
  const out: SettingsRead = { settings: {}, problems: [] };
  if (value === undefined || value === null) return out;
  if (typeof value !== "object" || Array.isArray(value)) {
    out.problems.push("settings.yaml: style must be a mapping of setting: value; ignored");
    return out;
  }
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const row = STYLE_SETTINGS.find((r) => r.key === key);
    if (row === undefined) {
      const known = STYLE_SETTINGS.map((r) => r.key).join(", ");
      out.problems.push(`settings.yaml: style.${key} is not a style setting (${known}); ignored`);
      continue;
    }
    if (raw === null) continue;
    const n = checked(row, raw, `settings.yaml: style.${key}`, out.problems);
    if (n !== undefined) out.settings[row.name] = n;
  }
  return out;
}

/** The `style:` mapping of a settings.yaml text; a file that is not YAML sets nothing (recall says why). */
export function styleSettingsIn(text: string): SettingsRead {
  if (!/^style\s*:/m.test(text)) return { settings: {}, problems: [] };
  let data: unknown;
  try {
    data = yamlData(text);
  } catch {
    return { settings: {}, problems: [] };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { settings: {}, problems: [] };
  return styleSettingsOf((data as Record<string, unknown>).style);
}

/** The settings the environment sets (the variables set and not empty). */
export function styleSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): SettingsRead {
  const out: SettingsRead = { settings: {}, problems: [] };
  for (const row of STYLE_SETTINGS) {
    const raw = env[row.env]?.trim();
    if (!raw) continue;
    const n = checked(row, raw, `$${row.env}`, out.problems);
    if (n !== undefined) out.settings[row.name] = n;
  }
  return out;
}

export interface Resolved {
  settings: StyleSettings;
  sources: Record<StyleSettingName, SettingSource>;
  problems: string[];
}

/**
 * The settings in force: the environment's over the file's over the defaults. A habit must be archived
 * before it is deleted, so an archive TTL not above the inactive one is raised, and that is said.
 */
export function resolveStyleSettings(
  file: SettingsRead,
  env: SettingsRead = { settings: {}, problems: [] },
): Resolved {
  const settings = { ...STYLE_DEFAULTS };
  const sources = {} as Record<StyleSettingName, SettingSource>;
  for (const row of STYLE_SETTINGS) {
    const fromEnv = env.settings[row.name];
    const fromFile = file.settings[row.name];
    if (fromEnv !== undefined) {
      settings[row.name] = fromEnv;
      sources[row.name] = `$${row.env}`;
    } else if (fromFile !== undefined) {
      settings[row.name] = fromFile;
      sources[row.name] = "settings.yaml";
    } else sources[row.name] = "default";
  }
  const problems = [...file.problems, ...env.problems];
  if (settings.archiveTtlDays <= settings.inactiveTtlDays) {
    const fixed = settings.inactiveTtlDays * 2;
    problems.push(
      `archive_ttl_days (${settings.archiveTtlDays}) must be more than inactive_ttl_days ` +
        `(${settings.inactiveTtlDays}): an archived habit is deleted at ${fixed} days instead`,
    );
    settings.archiveTtlDays = fixed;
  }
  return { settings, sources, problems };
}

/** The rules the store applies under these settings. */
export function rulesOf(s: StyleSettings): Rules {
  return {
    ...RULES,
    gateSightings: s.promoteCount,
    candidateTtl: s.candidateTtlDays * DAY,
    archiveAfter: s.inactiveTtlDays * DAY,
    deleteAfter: s.archiveTtlDays * DAY,
    briefItems: s.briefItems,
    exampleLength: s.exampleLength,
  };
}

/**
 * One line per setting (`onlySet`: per setting not left to its default): its value, what it does and,
 * when not the default, where it was set.
 */
export function describeStyleSettings(
  r: Pick<Resolved, "settings" | "sources">,
  options: { onlySet?: boolean } = {},
): string[] {
  const rows = options.onlySet
    ? STYLE_SETTINGS.filter((row) => r.sources[row.name] !== "default")
    : STYLE_SETTINGS;
  return rows.map((row) => {
    const from = r.sources[row.name] === "default" ? "" : ` (from ${r.sources[row.name]})`;
    return `${row.key}: ${r.settings[row.name]}: ${row.what}${from}`;
  });
}
