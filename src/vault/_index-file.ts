/**
 * The on-disk shape of the persisted index: one compact JSON row per file instead of one object per
 * card, because JSON.parse time is most of a warm start (measured: 10k cards, 4.7 MB of objects ≈ 30–55
 * ms to parse; 1.9 MB of rows ≈ 14–35 ms). Key, kind and path are derived from the row's path.
 *   card:   [path, mtime, size, 0, title, keywords, aliases, secondary|0, scanDepth, refs, priority,
 *            flags (1 = enabled, 2 = inject), firstLine, publicChars, warnings?]
 *   broken: [path, mtime, size, 1, error]
 */
import type { CardMeta, KindsConfig } from "../card/types.ts";

export const FORMAT = 2;

export interface IndexEntry {
  mtime: string;
  size: number;
  meta?: CardMeta;
  broken?: { path: string; kind: string; key: string; error: string };
  warnings?: string[];
}

type Row = unknown[];

function encodeRow(rel: string, e: IndexEntry): Row {
  if (!e.meta) return [rel, e.mtime, e.size, 1, e.broken?.error ?? "unreadable"];
  const m = e.meta;
  const s = m.secondary;
  const secondary = s.all.length + s.any.length + s.not.length === 0 ? 0 : [s.all, s.any, s.not];
  const flags = (m.enabled ? 1 : 0) | (m.inject ? 2 : 0);
  const row: Row = [rel, e.mtime, e.size, 0, m.title, m.keywords, m.aliases, secondary, m.scanDepth, m.refs];
  row.push(m.priority, flags, m.firstLine, m.publicChars);
  if (e.warnings) row.push(e.warnings);
  return row;
}

export function encodeIndex(kinds: string, entries: Record<string, IndexEntry>): string {
  const rows = Object.entries(entries).map(([rel, e]) => encodeRow(rel, e));
  return JSON.stringify({ format: FORMAT, kinds, rows });
}

function ownerOf(config: KindsConfig): (rel: string) => { kind: string; key: string } {
  const byDir = new Map(config.kinds.map((k) => [k.dir, k.name]));
  return (rel) => {
    const slash = rel.lastIndexOf("/");
    const kind = byDir.get(slash === -1 ? "" : rel.slice(0, slash));
    if (kind === undefined) throw new Error(`no kind for ${rel}`);
    return { kind, key: rel.slice(slash + 1, -3) };
  };
}

const isList = (v: unknown): v is string[] => Array.isArray(v);

function decodeRow(row: Row, owner: ReturnType<typeof ownerOf>): [string, IndexEntry] {
  const [rel, mtime, size, status] = row;
  if (typeof rel !== "string" || typeof mtime !== "string" || typeof size !== "number")
    throw new Error("bad row");
  const { kind, key } = owner(rel);
  if (status === 1) return [rel, { mtime, size, broken: { path: rel, kind, key, error: String(row[4]) } }];
  const [title, keywords, aliases, sec, scanDepth, refs, priority, flags, firstLine, publicChars, warnings] =
    row.slice(4);
  if (typeof title !== "string" || !isList(keywords) || !isList(aliases) || !isList(refs))
    throw new Error("bad row");
  const secondary = Array.isArray(sec)
    ? { all: sec[0], any: sec[1], not: sec[2] }
    : { all: [], any: [], not: [] };
  const meta: CardMeta = {
    key,
    kind,
    path: rel,
    title,
    keywords,
    aliases,
    secondary,
    scanDepth: typeof scanDepth === "number" ? scanDepth : null,
    refs,
    priority: Number(priority),
    enabled: ((flags as number) & 1) !== 0,
    inject: ((flags as number) & 2) !== 0,
    mtime,
    size,
    firstLine: String(firstLine),
    publicChars: Number(publicChars),
  };
  const entry: IndexEntry = { mtime, size, meta };
  if (isList(warnings)) entry.warnings = warnings;
  return [rel, entry];
}

/** Decode index.json text; null when it is corrupt, of another format or for another kind table. */
export function decodeIndex(
  text: string,
  kinds: string,
  config: KindsConfig,
): Record<string, IndexEntry> | null {
  try {
    const data = JSON.parse(text);
    if (data?.format !== FORMAT || data.kinds !== kinds || !Array.isArray(data.rows)) return null;
    const owner = ownerOf(config);
    const entries: Record<string, IndexEntry> = {};
    for (const row of data.rows as Row[]) {
      const [rel, entry] = decodeRow(row, owner);
      entries[rel] = entry;
    }
    return entries;
  } catch {
    return null;
  }
}
