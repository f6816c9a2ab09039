/**
 * Many cards changed as one step (the editor's bulk actions: enable, disable, when a card comes in, tags,
 * kind, archive): every card is read and checked under the vault lock, then the new files are put in
 * place by the batch placement (_batch.ts), all or nothing even across a crash, and the card history
 * records them as one step, which one undo (undo.ts) takes back. A card changed since the caller read
 * it (its `mtime`), or a kind change onto a name that is taken, refuses the whole step: nothing is written.
 * What a bulk action means for a card's fields is the caller's; here a change is data in, files out.
 */
import fs from "node:fs";
import { kindByName, parseCard, setFields } from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { type Placement, placeAll, type Removal } from "./_batch.ts";
import { withSettledLock } from "./_settle.ts";
import { archiveTarget } from "./archive.ts";
import { readRaw } from "./cards.ts";
import type { Writer } from "./history.ts";
import { cardPath, relPath, type Vault } from "./paths.ts";

/** A card to change, with the mtime the caller read (a different one now is a conflict). */
export interface BulkTarget {
  kind: string;
  key: string;
  mtime?: string;
}

/**
 * What happens to each card: `fields` sets (or with undefined removes) frontmatter keys, given the
 * card as it is; `kind` moves it to another kind under the same name; `archive` moves it to the archive.
 */
export type BulkChange =
  | { fields: (card: Card) => Record<string, unknown> }
  | { kind: string }
  | { archive: true };

export interface BulkOptions {
  writer?: Writer;
  /** One line for the history's step: what was done, e.g. "disabled". */
  note: string;
}

export interface BulkResult {
  /** The history step that holds the change (null when nothing changed, or history could not record it). */
  step: number | null;
  /** `kind/key` of the cards changed, and of those already as asked. */
  changed: string[];
  unchanged: string[];
}

/** Cards a step refuses, as `kind/key: why`, for the error and for a page to list. */
export function refused(problems: string[], what: string): LoreError {
  const shown =
    problems.slice(0, 10).join("; ") + (problems.length > 10 ? `; and ${problems.length - 10} more` : "");
  return new LoreError("conflict", `${what}, nothing was changed: ${shown}`, { data: { cards: problems } });
}

export function bulkChange(
  vault: Vault,
  targets: readonly BulkTarget[],
  change: BulkChange,
  opts: BulkOptions,
): Promise<BulkResult> {
  return withSettledLock(vault, async () => {
    const files: Placement[] = [];
    const removals: Removal[] = [];
    const changed: string[] = [];
    const unchanged: string[] = [];
    const problems: string[] = [];
    for (const t of targets) {
      const def = kindByName(vault.kinds, t.kind);
      const id = `${def.name}/${t.key}`;
      const { text, card } = readRaw(vault, def.name, t.key);
      if (t.mtime !== undefined && t.mtime !== card.mtime) {
        problems.push(`${id}: changed since it was read`);
        continue;
      }
      const file = cardPath(vault, def.name, t.key);
      if ("fields" in change) {
        const next = setFields(text, change.fields(card));
        if (next === text) unchanged.push(id);
        else files.push({ target: file, text: next, replaces: true, action: "update" });
      } else if ("archive" in change) {
        files.push({ target: archiveTarget(vault, def, t.key), text, replaces: false });
        removals.push({ target: file, action: "archive" });
      } else {
        const to = kindByName(vault.kinds, change.kind);
        if (to.name === def.name) {
          unchanged.push(id);
          continue;
        }
        const target = cardPath(vault, to.name, t.key);
        if (fs.existsSync(target)) {
          problems.push(`${id}: a ${to.name} card named "${t.key}" already exists`);
          continue;
        }
        // The folder sets the kind; a `kind:` line only repeats it, so it follows (none in the root).
        const next = setFields(text, { kind: to.dir === "" ? undefined : to.name });
        parseCard(next, { kind: to.name, key: t.key, kinds: vault.kinds, path: relPath(vault, target) });
        files.push({ target, text: next, replaces: false, action: "move" });
        removals.push({ target: file, action: "move" });
      }
      if (!unchanged.includes(id)) changed.push(id);
    }
    if (problems.length > 0) throw refused(problems, `${problems.length} of the cards cannot be changed`);
    if (files.length === 0 && removals.length === 0) return { step: null, changed, unchanged };
    const record = {
      writer: opts.writer ?? "cli",
      action: "update" as const,
      step: { action: "bulk" as const, note: opts.note },
    };
    const step = await placeAll(vault, files, undefined, record, removals);
    return { step, changed, unchanged };
  });
}
