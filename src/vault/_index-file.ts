/**
 * The persisted index in memory and on disk: one compact JSON row per file rather than one object per
 * card, because a warm start is mostly JSON.parse (10k cards: 4.7 MB of objects ≈ 30–55 ms; 1.7 MB of
 * rows ≈ 7 ms). Rows stay rows in memory: a card's CardMeta is built only when someone asks for it, so
 * the hook and the gateway, which need just the few cards that fired, never build ten thousand objects.
 *   card:   [path, mtime, size, 0, title, keywords, aliases, secondary|0, scanDepth, refs, priority,
 *            flags (1 = enabled, 2 = inject), firstLine, publicChars, warnings|0?, rules?]
 *   secondary: [all, any, not, notAll?]; rules: only the rules that differ from the defaults
 *   (card/ `rulesChanges`), present only on a card that has any.
 *   broken: [path, mtime, size, 1, error]
 * Key, kind and path are derived from the row's path.
 */
import { type RuleChanges, rulesChanges, rulesWith } from "../card/index.ts";
import type { BrokenCard, CardMeta, KindsConfig, Secondary } from "../card/types.ts";

/**
 * 4: cards gained their lorebook rules (context, regex, groups, decorators, …) and secondary.not_all,
 * which a format 3 row never held, so every card is parsed again rather than read as all defaults.
 */
export const FORMAT = 4;

type Row = unknown[];

const isList = (v: unknown): v is string[] => Array.isArray(v);

/** A freshly parsed file, before it becomes a row. */
export interface ParsedEntry {
  mtime: string;
  size: number;
  meta?: CardMeta;
  broken?: BrokenCard;
  warnings?: string[];
}

export class IndexTable {
  private readonly rows = new Map<string, Row>();
  private readonly metas = new Map<string, CardMeta>();
  private readonly owner: (rel: string) => { kind: string; key: string };

  constructor(config: KindsConfig) {
    const byDir = new Map(config.kinds.map((k) => [k.dir, k.name]));
    this.owner = (rel) => {
      const slash = rel.lastIndexOf("/");
      const kind = byDir.get(slash === -1 ? "" : rel.slice(0, slash));
      if (kind === undefined) throw new Error(`no kind for ${rel}`);
      return { kind, key: rel.slice(slash + 1, -3) };
    };
  }

  get size(): number {
    return this.rows.size;
  }

  paths(): IterableIterator<string> {
    return this.rows.keys();
  }

  has(rel: string): boolean {
    return this.rows.has(rel);
  }

  /** True when the row for `rel` was made from a file with this mtime and size. */
  isCurrent(rel: string, mtime: string, size: number): boolean {
    const row = this.rows.get(rel);
    return row !== undefined && row[1] === mtime && row[2] === size;
  }

  add(rel: string, entry: ParsedEntry): void {
    this.rows.set(rel, encodeRow(rel, entry));
    if (entry.meta) this.metas.set(rel, entry.meta);
  }

  /** Copy the row (and any decoded meta) of `rel` from another table. */
  copyFrom(other: IndexTable, rel: string): void {
    const row = other.rows.get(rel);
    if (row === undefined) return;
    this.rows.set(rel, row);
    const meta = other.metas.get(rel);
    if (meta) this.metas.set(rel, meta);
  }

  /** The card at `rel`, decoded on first use; undefined when there is none or it is broken. */
  meta(rel: string): CardMeta | undefined {
    const known = this.metas.get(rel);
    if (known) return known;
    const row = this.rows.get(rel);
    if (row === undefined || row[3] === 1) return undefined;
    const { kind, key } = this.owner(rel);
    const meta = metaOfRow(row, rel, kind, key);
    this.metas.set(rel, meta);
    return meta;
  }

  broken(rel: string): BrokenCard | undefined {
    const row = this.rows.get(rel);
    if (row === undefined || row[3] !== 1) return undefined;
    return { path: rel, ...this.owner(rel), error: String(row[4]) };
  }

  warnings(rel: string): string[] | undefined {
    const row = this.rows.get(rel);
    const w = row?.[3] === 0 ? row[14] : undefined;
    return isList(w) ? w : undefined;
  }

  encode(kinds: string): string {
    return JSON.stringify({ format: FORMAT, kinds, rows: [...this.rows.values()] });
  }

  /** Decode index.json text; null when it is corrupt, of another format or for another kind table. */
  static decode(text: string, kinds: string, config: KindsConfig): IndexTable | null {
    try {
      const data = JSON.parse(text);
      if (data?.format !== FORMAT || data.kinds !== kinds || !Array.isArray(data.rows)) return null;
      const table = new IndexTable(config);
      // A row whose path no longer names a card file is harmless: loadIndex keeps only the rows of
      // files it finds on disk, so such a row never reaches a caller.
      for (const row of data.rows as Row[]) {
        if (!validRow(row)) return null;
        table.rows.set(row[0] as string, row);
      }
      return table;
    } catch {
      return null;
    }
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

function encodeRow(rel: string, e: ParsedEntry): Row {
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
  if (e.warnings || m.rules) row.push(e.warnings ?? 0);
  if (m.rules) row.push(rulesChanges(m.rules));
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
  };
}
