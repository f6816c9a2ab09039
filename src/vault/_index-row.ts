/**
 * One card file as the index stores it (vault/_index-db.ts): a compact JSON row rather than an object,
 * because a row is small to keep and quick to decode, and a card's CardMeta is built only when someone
 * asks for it, so the hook and the gateway, which need just the few cards that fired, never build ten
 * thousand objects.
 *   card:   [path, mtime, size, 0, title, keywords, aliases, secondary|0, scanDepth, refs, priority,
 *            flags (1 = enabled, 2 = inject), firstLine, publicChars, warnings|0?, rules|0?, tags?]
 *   secondary: [all, any, not, notAll?]; rules: only the rules that differ from the defaults
 *   (card/ `rulesChanges`), present only on a card that has any.
 *   broken: [path, mtime, size, 1, error]
 * Key, kind and path are derived from the row's path.
 */
import { type RuleChanges, rulesChanges, rulesWith } from "../card/index.ts";
import type { BrokenCard, CardMeta, Secondary } from "../card/types.ts";

/**
 * 4: cards gained their lorebook rules (context, regex, groups, decorators, …) and secondary.not_all,
 * which a format 3 row never held, so every card is parsed again rather than read as all defaults.
 * 5: cards gained their tags.
 * 6: a card's warnings name the frontmatter keys that look like a field but are none (card/_typos.ts).
 */
export const FORMAT = 6;

export type Row = unknown[];

const isList = (v: unknown): v is string[] => Array.isArray(v);

/** A freshly parsed file, before it becomes a row. */
export interface ParsedEntry {
  mtime: string;
  size: number;
  meta?: CardMeta;
  broken?: BrokenCard;
  warnings?: string[];
}

/** A stored row back as a card: undefined for a broken file's row. */
export function decodeRow(row: Row, rel: string, owner: { kind: string; key: string }): CardMeta | undefined {
  return row[3] === 1 ? undefined : metaOfRow(row, rel, owner.kind, owner.key);
}

/** A broken file's stored error, or undefined for a card's row. */
export function brokenOfRow(row: Row): string | undefined {
  return row[3] === 1 ? String(row[4]) : undefined;
}

/** The warnings a card's row kept, if any. */
export function warningsOfRow(row: Row): string[] | undefined {
  const w = row[3] === 0 ? row[14] : undefined;
  return isList(w) ? w : undefined;
}

/** Parse a stored row; null when it is damaged (the file is then parsed again). */
export function readRow(text: string): Row | null {
  try {
    const row: unknown = JSON.parse(text);
    return validRow(row) ? row : null;
  } catch {
    return null;
  }
}

/** The shape every row must have; anything else means the file is damaged and gets rebuilt. */
function validRow(row: unknown): row is Row {
  if (!Array.isArray(row)) return false;
  const [rel, mtime, size, status] = row;
  if (typeof rel !== "string" || typeof mtime !== "string" || typeof size !== "number") return false;
  if (status === 1) return true;
  return status === 0 && typeof row[4] === "string" && isList(row[5]) && isList(row[6]) && isList(row[9]);
}

export function encodeRow(rel: string, e: ParsedEntry): Row {
  if (!e.meta) return [rel, e.mtime, e.size, 1, e.broken?.error ?? "unreadable"];
  const m = e.meta;
  const s = m.secondary;
  const secondary =
    s.all.length + s.any.length + s.not.length + s.notAll.length === 0
      ? 0
      : s.notAll.length === 0
        ? [s.all, s.any, s.not]
        : [s.all, s.any, s.not, s.notAll];
  const flags = (m.enabled ? 1 : 0) | (m.inject ? 2 : 0);
  const row: Row = [rel, e.mtime, e.size, 0, m.title, m.keywords, m.aliases, secondary, m.scanDepth, m.refs];
  row.push(m.priority, flags, m.firstLine, m.publicChars);
  if (e.warnings || m.rules || m.tags) row.push(e.warnings ?? 0);
  if (m.rules || m.tags) row.push(m.rules ? rulesChanges(m.rules) : 0);
  if (m.tags) row.push(m.tags);
  return row;
}

function secondaryOf(sec: unknown): Secondary {
  if (!Array.isArray(sec)) return { all: [], any: [], not: [], notAll: [] };
  return { all: sec[0], any: sec[1], not: sec[2], notAll: sec[3] ?? [] };
}

function metaOfRow(row: Row, rel: string, kind: string, key: string): CardMeta {
  const flags = Number(row[11]);
  const rules = row[15];
  return {
    key,
    kind,
    path: rel,
    title: row[4] as string,
    keywords: row[5] as string[],
    aliases: row[6] as string[],
    secondary: secondaryOf(row[7]),
    scanDepth: typeof row[8] === "number" ? row[8] : null,
    refs: row[9] as string[],
    priority: Number(row[10]),
    enabled: (flags & 1) !== 0,
    inject: (flags & 2) !== 0,
    mtime: row[1] as string,
    size: row[2] as number,
    firstLine: String(row[12]),
    publicChars: Number(row[13]),
    ...(typeof rules === "object" && rules !== null && { rules: rulesWith(rules as RuleChanges) }),
    ...(isList(row[16]) && { tags: row[16] }),
  };
}
