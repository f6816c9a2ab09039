/**
 * Taking back one step of the history (`POST /api/history/{step}/undo`): every card the step wrote is put
 * back as it was before it, in one step of its own (action `undo`, naming the step it took back), by
 * the batch placement (_batch.ts), so it is all or nothing and can itself be undone. A card the step
 * created is archived (nothing is deleted), one it archived is brought back from the archive, one it
 * moved to another kind goes back to its old kind. Only a step whose cards are still as it left them is
 * undone: a card written since refuses the whole undo, naming it, and nothing is changed.
 */
import fs from "node:fs";
import path from "node:path";
import { kindByName } from "../card/index.ts";
import type { KindDef } from "../card/types.ts";
import { describeError, LoreError } from "../errors.ts";
import { type Placement, placeAll, type Removal } from "./_batch.ts";
import { readNoFollow } from "./_links.ts";
import { withSettledLock } from "./_settle.ts";
import { archiveTarget } from "./archive.ts";
import { refused } from "./bulk.ts";
import { readStep, type VersionRow, type Writer } from "./history.ts";
import { archiveDir, cardPath, type Vault } from "./paths.ts";

export interface Undone {
  /** The new step that took it back (null when history could not record it). */
  step: number | null;
  /** The step taken back. */
  undid: number;
  /** `kind/key` of the cards put back. */
  cards: string[];
}

/** A card file's text, null when there is none; never through a link (README "Symbolic links"). */
function textOf(vault: Vault, file: string): string | null {
  try {
    return readNoFollow(vault, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (err instanceof LoreError) throw err;
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
}

/** The archived copy of a card holding exactly `text` (`key.md` or `key~n.md`), if any. */
function archivedCopy(vault: Vault, def: KindDef, key: string, text: string): string | null {
  const dir = archiveDir(vault, def);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const mine = names.filter((n) => n === `${key}.md` || (n.startsWith(`${key}~`) && n.endsWith(".md")));
  return mine.map((n) => path.join(dir, n)).find((f) => textOf(vault, f) === text) ?? null;
}

/** What putting one card back takes: files to place and files to take away. */
function putBack(vault: Vault, v: VersionRow, files: Placement[], removals: Removal[]): void {
  const def = kindByName(vault.kinds, v.kind);
  const file = cardPath(vault, def.name, v.key);
  if (v.before !== null && v.after !== null) {
    files.push({ target: file, text: v.before, replaces: true, action: "undo" });
  } else if (v.before === null && v.after !== null) {
    // The step made this card: the other half of a kind change holds its text; anything else is archived.
    if (v.action !== "move")
      files.push({ target: archiveTarget(vault, def, v.key), text: v.after, replaces: false });
    removals.push({ target: file, action: v.action === "move" ? "move" : "archive" });
  } else if (v.before !== null) {
    files.push({
      target: file,
      text: v.before,
      replaces: false,
      action: v.action === "move" ? "move" : "restore",
    });
    const copy = v.action === "archive" ? archivedCopy(vault, def, v.key, v.before) : null;
    if (copy !== null) removals.push({ target: copy, action: "restore" });
  }
}

export async function undoStep(vault: Vault, id: number, opts: { writer?: Writer } = {}): Promise<Undone> {
  const found = readStep(vault, id);
  if (found === null) throw new LoreError("not_found", `there is no step #${id} in the history`);
  const { step, versions } = found;
  if (step.kept < step.cards) {
    throw new LoreError(
      "invalid_input",
      `step #${id} changed ${step.cards} cards, and the versions of ${step.cards - step.kept} of them were dropped ` +
        "since (each card keeps its newest 50): it can no longer be undone as a whole",
    );
  }
  return withSettledLock(vault, async () => {
    const files: Placement[] = [];
    const removals: Removal[] = [];
    const problems: string[] = [];
    for (const v of versions) {
      const current = textOf(vault, cardPath(vault, kindByName(vault.kinds, v.kind).name, v.key));
      if (current !== v.after) problems.push(`${v.kind}/${v.key}: changed since step #${id}`);
      else putBack(vault, v, files, removals);
    }
    if (problems.length > 0) throw refused(problems, `step #${id} cannot be undone`);
    const record = {
      writer: opts.writer ?? "cli",
      action: "undo" as const,
      step: { action: "undo" as const, undoes: id, note: step.note ?? undefined },
    };
    const made = await placeAll(vault, files, undefined, record, removals);
    return { step: made, undid: id, cards: versions.map((v) => `${v.kind}/${v.key}`) };
  });
}
