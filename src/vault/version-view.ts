/**
 * How a version is shown (`lorecards history`, the API, the editor's history view): a one-line summary
 * of what it changed (the frontmatter keys and `## ` sections that differ, and lines added and removed),
 * and a line diff of its text before and after. The diff is jsdiff's (the `diff` package), loaded only
 * when a version is shown: no write path pays for it.
 */
import type { VersionRow } from "./history.ts";

export interface VersionInfo {
  version: number;
  /** ISO 8601, UTC. */
  at: string;
  writer: string;
  action: string;
  /** Bytes of the text after (null: the version left no live card). */
  size: number | null;
  summary: string;
  reverted_to: number | null;
  /** The step it belongs to: one undo takes back the whole step (history.ts). */
  step: number;
}

/** One hunk of a unified diff: `lines` start with " ", "+" or "-" (and "\\" for a missing newline). */
export interface Hunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  lines: string[];
}

const SHOWN_PARTS = 4;

/**
 * A card text cut into named parts: each top-level frontmatter key, the body before its first `## `
 * heading ("text"), and each `## ` section. Comparing parts says which ones a change touched.
 */
export function cardParts(text: string): Map<string, string> {
  const parts = new Map<string, string>();
  const add = (name: string, line: string) => parts.set(name, `${parts.get(name) ?? ""}${line}\n`);
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r?\n$/, "")
    .split(/\r?\n/);
  let i = 0;
  const close = lines[0] === "---" ? lines.indexOf("---", 1) : -1;
  if (close > 0) {
    let key = "frontmatter";
    for (i = 1; i < close; i++) {
      const m = /^([^\s#:-][^:]*?)\s*:/.exec(lines[i]!);
      if (m) key = m[1]!;
      add(key, lines[i]!);
    }
    i = close + 1;
  }
  let section = "text";
  for (; i < lines.length; i++) {
    const m = /^##\s+(.+?)\s*$/.exec(lines[i]!);
    if (m) section = `## ${m[1]}`;
    add(section, lines[i]!);
  }
  return parts;
}

/** The parts that differ, in the order the text after has them, then those only the text before had. */
export function changedParts(before: string, after: string): string[] {
  const a = cardParts(before);
  const b = cardParts(after);
  const names = [...new Set([...b.keys(), ...a.keys()])];
  return names.filter((n) => (a.get(n) ?? "").trim() !== (b.get(n) ?? "").trim());
}

function lineCount(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

async function lineChanges(before: string, after: string): Promise<{ added: number; removed: number }> {
  const { diffLines } = await import("diff");
  let added = 0;
  let removed = 0;
  for (const c of diffLines(before, after)) {
    if (c.added) added += c.count;
    else if (c.removed) removed += c.count;
  }
  return { added, removed };
}

/** One line saying what a version did. */
export async function summarize(row: VersionRow): Promise<string> {
  const { before, after } = row;
  if (after === null) {
    const gone = { move: "moved to another kind", undo: "taken back by an undo" };
    return gone[row.action as keyof typeof gone] ?? "archived";
  }
  if (before === null) {
    const made = {
      restore: "restored from the archive",
      import: "imported",
      create: "created",
      move: "moved in from another kind",
      undo: "brought back by an undo",
    };
    return `${made[row.action as keyof typeof made] ?? row.action}, ${lineCount(after)} lines`;
  }
  const leads: Record<string, string> = {
    revert: `back to #${row.reverted_to}: `,
    import: "imported: ",
    undo: "undo: ",
  };
  const lead = leads[row.action] ?? "";
  if (before === after) return `${lead}no change`;
  const parts = changedParts(before, after);
  const named =
    parts.length === 0
      ? "whitespace"
      : parts.slice(0, SHOWN_PARTS).join(", ") + (parts.length > SHOWN_PARTS ? ", …" : "");
  const { added, removed } = await lineChanges(before, after);
  return `${lead}${named} (+${added} -${removed} lines)`;
}

export async function describeVersion(row: VersionRow): Promise<VersionInfo> {
  return {
    version: row.id,
    at: new Date(row.at).toISOString(),
    writer: row.writer,
    action: row.action,
    size: row.after === null ? null : Buffer.byteLength(row.after),
    summary: await summarize(row),
    reverted_to: row.reverted_to,
    step: row.step ?? row.id,
  };
}

/** The version's change as unified-diff hunks (3 lines of context), and as patch text. */
export async function versionDiff(row: VersionRow): Promise<{ hunks: Hunk[]; patch: string }> {
  const { createTwoFilesPatch, structuredPatch } = await import("diff");
  const label = `${row.kind}/${row.key}`;
  const [from, to] = [row.before ?? "", row.after ?? ""];
  const names = [`${label} before #${row.id}`, `${label} after #${row.id}`] as const;
  const patch = structuredPatch(names[0], names[1], from, to, "", "", { context: 3 });
  return {
    hunks: patch.hunks.map((h) => ({
      old_start: h.oldStart,
      old_lines: h.oldLines,
      new_start: h.newStart,
      new_lines: h.newLines,
      lines: h.lines,
    })),
    patch: createTwoFilesPatch(names[0], names[1], from, to, "", "", { context: 3 }),
  };
}
