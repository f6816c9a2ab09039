/**
 * The vault as it was at a version or a time, for `try --as-of` (README "History"): a copy of the vault
 * in a temporary folder where every card that has history holds its text of then (and a card that was
 * not live then is absent), and every other file (cards without history, kinds.yaml, settings.yaml,
 * the guide) is as it is now. A copy, not a view: recall then reads it the way it reads any vault, and
 * the real vault is never touched. The state folder and the archive are not copied, and no link is.
 *
 * A card's state at version V is the text after its newest version up to V. A card whose every kept
 * version is later takes the text before the oldest of them: exact when that is its first version
 * ever, an estimate when older ones were dropped (HISTORY_CAP); such cards are named in `estimated`.
 */
import fs from "node:fs";
import path from "node:path";
import { cardAt } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { readHistory, readVersion, statesAt, versionAt } from "./history.ts";
import { ARCHIVE_DIR, cardPath, STATE_DIR, type Vault } from "./paths.ts";

/** A version number, or a time in ms since the epoch. */
export type AsOfPoint = { version: number } | { at: number };

export interface AsOfVault {
  /** The copy's root; removed by `remove`. */
  root: string;
  /** The newest version the copy includes (0: none). */
  version: number;
  /** When that version was written (ISO 8601), or null. */
  at: string | null;
  /** Cards whose text comes from history (`kind/key`), and those of them left out as not live then. */
  fromHistory: string[];
  absent: string[];
  /**
   * Cards whose every kept version is later, taken as they were just before the oldest: exact when that
   * version was their first, an estimate when older ones were dropped or the file was edited by hand.
   */
  estimated: string[];
  /** Live card files with no history, taken as they are now. */
  asNow: number;
  remove(): void;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * `N` (a version number), or an ISO 8601 date or date and time. Without a zone, a time is local; a
 * date alone is its start (00:00 local time). `field` is what the error calls it: the CLI's flag, or
 * the name a request gave it (an MCP tool's `as_of` told an agent about `--as-of`).
 */
export function parseAsOf(
  value: string,
  code: "usage" | "invalid_input" = "usage",
  field = "--as-of",
): AsOfPoint {
  const v = value.trim();
  if (/^\d+$/.test(v)) return { version: Number(v) };
  const ms = DATE_ONLY.test(v) ? Date.parse(`${v}T00:00:00`) : DATE_TIME.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new LoreError(
      code,
      `${field} takes a version number or a date and time (2025-06-01, 2025-06-01T14:30, …), got "${value}"`,
    );
  }
  return { at: ms };
}

/**
 * One card's file text at a point: the text after its newest kept version at or before it, with that
 * version's number and time; null when it had no kept version by then, or was archived then.
 */
export function cardTextAt(
  vault: Vault,
  kind: string,
  key: string,
  point: AsOfPoint,
): { version: number; at: number; text: string } | null {
  const upTo = "version" in point ? point.version : versionAt(vault, point.at);
  if ("version" in point && point.version > versionAt(vault)) return null;
  // Newest first: the first at or before the point holds the text of then.
  const row = readHistory(vault, kind, key).find((r) => r.id <= upTo);
  return row && row.after !== null ? { version: row.id, at: row.at, text: row.after } : null;
}

/** Everything in the vault but the state folder, the archive and links, copied to `to`. */
function copyVault(vault: Vault, to: string): void {
  const skip = new Set([path.join(vault.root, STATE_DIR), path.join(vault.root, ARCHIVE_DIR)]);
  fs.cpSync(vault.root, to, {
    recursive: true,
    // The vault folder itself may be a link (README "Symbolic links"); nothing inside it is followed.
    filter: (src) => src === vault.root || (!skip.has(src) && !fs.lstatSync(src).isSymbolicLink()),
  });
}

/** Every card of the copy at `root`, as `kind/key`, sub-folders included (card/ `cardAt`). */
function cardFiles(vault: Vault, root: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const at = cardAt(vault.kinds, entry.split(path.sep).join("/"));
    if (at !== undefined) out.push(`${at.kind.name}/${at.key}`);
  }
  return out;
}

/** Makes the copy (see the module comment). LoreError not_found for a version that does not exist. */
export function vaultAsOf(vault: Vault, point: AsOfPoint): AsOfVault {
  const newest = versionAt(vault);
  const version = "version" in point ? point.version : versionAt(vault, point.at);
  if ("version" in point && (version < 1 || version > newest)) {
    throw new LoreError(
      "not_found",
      newest === 0 ? "the vault has no history yet" : `no version ${version} (versions go up to ${newest})`,
    );
  }
  const states = statesAt(vault, version);
  // node:os only here: loading it costs every cold start (the hook's included) about a millisecond.
  const { tmpdir } = require("node:os") as typeof import("node:os");
  const root = fs.mkdtempSync(path.join(tmpdir(), "lorecards-as-of-"));
  try {
    copyVault(vault, root);
    const copy: Vault = { ...vault, root };
    const report = { fromHistory: [] as string[], absent: [] as string[], estimated: [] as string[] };
    for (const s of states) {
      const name = `${s.kind}/${s.key}`;
      let file: string;
      try {
        file = cardPath(copy, s.kind, s.key);
      } catch {
        continue; // a kind kinds.yaml no longer has
      }
      report.fromHistory.push(name);
      if (s.older === 1 && s.text !== null) report.estimated.push(name);
      if (s.text === null) {
        fs.rmSync(file, { force: true });
        report.absent.push(name);
      } else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, s.text);
      }
    }
    const known = new Set(report.fromHistory);
    const asNow = cardFiles(vault, root).filter((n) => !known.has(n)).length;
    const remove = () => fs.rmSync(root, { recursive: true, force: true });
    const at = version === 0 ? null : (readVersion(vault, version)?.at ?? null);
    return { root, version, at: at === null ? null : new Date(at).toISOString(), ...report, asNow, remove };
  } catch (err) {
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
}
