/**
 * The index's rows as callers read them: a card's metadata by path, fetched from index.db and decoded
 * on first use, so a process that needs the few cards that fired touches only their rows. The full
 * lists (every path, in the vault's order) are read only by callers that want every card.
 */
import { cardAt } from "../card/index.ts";
import type { BrokenCard, CardMeta, KindsConfig } from "../card/types.ts";
import type { IndexDb } from "./_index-db.ts";
import { brokenOfRow, decodeRow, type Row, readRow, warningsOfRow } from "./_index-row.ts";

/**
 * Rows and cards kept decoded before the caches start again: a server that answers for weeks hits
 * most cards of a large vault sooner or later, and must not end up holding all of them.
 */
const MAX_KEPT = 5000;

export class IndexRows {
  private rows = new Map<string, Row | null>();
  private metas = new Map<string, CardMeta>();
  private readonly owner: (rel: string) => { kind: string; key: string } | undefined;
  private ordered?: string[];

  constructor(
    private readonly idx: IndexDb,
    private readonly config: KindsConfig,
  ) {
    this.owner = (rel) => {
      const at = cardAt(config, rel);
      return at === undefined ? undefined : { kind: at.kind.name, key: at.key };
    };
  }

  /**
   * Take over the rows and cards `from` (an older version of the same index) decoded, but those at
   * `changed`: a server's next version starts with what the last one read, not from nothing. `from` is
   * not used afterwards (its caches are this one's now).
   */
  adopt(from: IndexRows, changed: Iterable<string>): void {
    if (from.idx !== this.idx) return;
    for (const rel of changed) {
      from.rows.delete(rel);
      from.metas.delete(rel);
    }
    this.rows = from.rows;
    this.metas = from.metas;
  }

  /** Every path, kinds in table order, then file names in code-unit order. */
  paths(): readonly string[] {
    this.ordered ??= this.config.kinds.flatMap((kind) => this.ordering(this.idx.q.rowsIn.all(kind.dir)));
    return this.ordered;
  }

  /** The paths of broken files, in the same order: found without reading every row. */
  brokenPaths(): readonly string[] {
    return this.inOrder(this.ordering(this.idx.q.brokenRows.all()));
  }

  /**
   * Every enabled card, in the vault's order, as stored rows: for a rebuild that reads each card once
   * (`decode`) and keeps none, so a 100k-card vault is never held decoded all at once.
   */
  enabledRows(): { paths: string[]; rows: string[] } {
    const paths: string[] = [];
    const rows: string[] = [];
    for (const kind of this.config.kinds) {
      const found = this.idx.q.enabledRowsIn.all(kind.dir).sort((a, b) => byCodeUnit(a.path, b.path));
      for (const f of found) {
        paths.push(f.path);
        rows.push(f.row);
      }
    }
    return { paths, rows };
  }

  /**
   * The cards whose key (`by: "key"`) or title, trimmed and case-folded, is one of `folded`, in the
   * vault's order: indexed look-ups (vault/lookup.ts), whatever the vault's size.
   */
  named(by: "key" | "title", folded: readonly string[]): CardMeta[] {
    const q = by === "key" ? this.idx.q.byFoldedKey : this.idx.q.byFoldedTitle;
    const paths = new Set(folded.flatMap((name) => q.all(name).map((r) => r.path)));
    return this.inOrder([...paths]).flatMap((rel) => this.meta(rel) ?? []);
  }

  /** `paths` in the vault's order: kinds in table order, then file names in code-unit order. */
  private inOrder(paths: string[]): string[] {
    const rank = new Map(this.config.kinds.map((k, i) => [k.name, i]));
    const rankOf = (rel: string) => rank.get(cardAt(this.config, rel)?.kind.name ?? "") ?? 0;
    return paths.sort((a, b) => rankOf(a) - rankOf(b) || byCodeUnit(a, b));
  }

  /** One stored row as a card, not kept (see `enabledRows`). */
  decode(rel: string, text: string): CardMeta | undefined {
    const row = readRow(text);
    const owner = this.owner(rel);
    return row === null || owner === undefined ? undefined : decodeRow(row, rel, owner);
  }

  /** Keep the rows read, and give their paths in code-unit order. */
  private ordering(found: { path: string; row: string }[]): string[] {
    for (const { path, row } of found) if (!this.rows.has(path)) this.rows.set(path, readRow(row));
    return found.map((f) => f.path).sort(byCodeUnit);
  }

  get size(): number {
    return this.ordered?.length ?? this.idx.q.count.get()?.n ?? 0;
  }

  /** The card at `rel`, decoded on first use; undefined when there is none or it is broken. */
  meta(rel: string): CardMeta | undefined {
    const known = this.metas.get(rel);
    if (known) return known;
    const row = this.row(rel);
    const owner = this.owner(rel);
    if (row === null || owner === undefined) return undefined;
    const meta = decodeRow(row, rel, owner);
    if (this.metas.size >= MAX_KEPT && this.ordered === undefined) this.metas.clear();
    if (meta) this.metas.set(rel, meta);
    return meta;
  }

  broken(rel: string): BrokenCard | undefined {
    const row = this.row(rel);
    const owner = this.owner(rel);
    const error = row === null ? undefined : brokenOfRow(row);
    return error === undefined || owner === undefined ? undefined : { path: rel, ...owner, error };
  }

  warnings(rel: string): string[] | undefined {
    const row = this.row(rel);
    return row === null ? undefined : warningsOfRow(row);
  }

  private row(rel: string): Row | null {
    let row = this.rows.get(rel);
    if (row === undefined) {
      const stored = this.idx.q.row.get(rel);
      row = stored ? readRow(stored.row) : null;
      if (stored && row === null) this.forget(rel);
      // Once every row was read (`paths`) they all stay: whoever asked for every card holds them anyway.
      if (this.rows.size >= MAX_KEPT && this.ordered === undefined) this.rows.clear();
      this.rows.set(rel, row);
    }
    return row;
  }

  /** A damaged row is not served; its file and folder are marked to be compared (and parsed) again. */
  private forget(rel: string): void {
    try {
      const slash = rel.lastIndexOf("/");
      this.idx.db.transaction(() => {
        this.idx.q.restat.run(-1, -1, rel);
        this.idx.q.setDir.run(slash === -1 ? "" : rel.slice(0, slash), "");
      })();
    } catch {
      // a read-only index: the next full check finds the file again
    }
  }
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
