/**
 * SillyTavern World Info books, both ways. The mapping is the seed's table ("Import / export"):
 * key → keywords, keysecondary + selectiveLogic → secondary, comment → title, content → body,
 * order → priority, scanDepth (else depth) → scan_depth halved, disable → enabled inverted. Every other
 * field rides along verbatim under `st:`.
 */

import { normalizeText } from "../card/index.ts";
import {
  type BookEntry,
  badFile,
  emptySecondary,
  type FieldRule,
  isRecord,
  joinEntry,
  type Mapped,
  numberOr,
  type Raw,
  splitEntry,
  stringList,
} from "./_model.ts";

/** selectiveLogic values as SillyTavern numbers them. */
const AND_ANY = 0;
const AND_ALL = 1;
const NOT_ANY = 2;
const NOT_ALL = 3;

/** ST counts messages, lorecards counts turns (two messages); odd counts round up. */
export function halveDepth(messages: number): number {
  return Math.ceil(messages / 2);
}

export function doubleDepth(turns: number): number {
  return turns * 2;
}

function depthOf(entry: Raw): number | null {
  if (typeof entry.scanDepth === "number" && Number.isFinite(entry.scanDepth)) return entry.scanDepth;
  if (typeof entry.depth === "number" && Number.isFinite(entry.depth)) return entry.depth;
  return null;
}

export const ST_RULES: FieldRule[] = [
  {
    fields: ["key"],
    read: (e) => ({ keywords: stringList(e.key) }),
    write: (m) => ({ key: [...m.keywords] }),
  },
  {
    fields: ["keysecondary", "selectiveLogic"],
    read: (e) => {
      const words = stringList(e.keysecondary);
      const secondary = emptySecondary();
      const logic = numberOr(e.selectiveLogic, AND_ANY);
      if (logic === AND_ALL) secondary.all = words;
      else if (logic === NOT_ANY || logic === NOT_ALL) secondary.not = words;
      else secondary.any = words;
      return { secondary };
    },
    write: (m) => {
      // ST holds one list and one logic: the first non-empty of any, all, not wins.
      const { any, all, not } = m.secondary;
      if (any.length > 0 || (all.length === 0 && not.length === 0)) {
        return { keysecondary: [...any], selectiveLogic: AND_ANY };
      }
      if (all.length > 0) return { keysecondary: [...all], selectiveLogic: AND_ALL };
      return { keysecondary: [...not], selectiveLogic: NOT_ANY };
    },
  },
  {
    fields: ["comment"],
    read: (e) => ({ title: titleOf(e) }),
    write: (m) => ({ comment: m.title }),
  },
  {
    fields: ["content"],
    read: (e) => ({ body: bodyOf(e.content) }),
    write: (m) => ({ content: m.body }),
  },
  {
    fields: ["order"],
    read: (e) => ({ priority: numberOr(e.order, 100) }),
    write: (m) => ({ order: m.priority }),
  },
  {
    fields: ["scanDepth"],
    read: (e) => {
      const depth = depthOf(e);
      return { scanDepth: depth === null ? null : halveDepth(depth) };
    },
    write: (m) => ({ scanDepth: m.scanDepth === null ? null : doubleDepth(m.scanDepth) }),
  },
  {
    fields: ["disable"],
    read: (e) => ({ enabled: e.disable !== true }),
    write: (m) => ({ disable: !m.enabled }),
  },
];

/** A card file has \n line endings; the original CRLF content is kept aside when it differs. */
export function bodyOf(content: unknown): string {
  return typeof content === "string" ? normalizeText(content) : "";
}

function titleOf(e: Raw): string {
  if (typeof e.comment === "string" && e.comment.trim() !== "") return e.comment.trim();
  const first = stringList(e.key)[0];
  if (first !== undefined) return first;
  return `entry ${typeof e.uid === "number" || typeof e.uid === "string" ? e.uid : "?"}`;
}

/** A World Info entry as a current SillyTavern writes it, for cards that never came from one. */
const ST_DEFAULTS: Raw = {
  constant: false,
  vectorized: false,
  selective: true,
  addMemo: true,
  position: 0,
  ignoreBudget: false,
  excludeRecursion: false,
  preventRecursion: false,
  delayUntilRecursion: false,
  probability: 100,
  useProbability: true,
  depth: 4,
  group: "",
  groupOverride: false,
  groupWeight: 100,
  caseSensitive: null,
  matchWholeWords: null,
  useGroupScoring: null,
  automationId: "",
  role: null,
  sticky: 0,
  cooldown: 0,
  delay: 0,
};

export interface SkippedEntry {
  title: string;
  reason: string;
}

/** Whether a parsed JSON value looks like a World Info book (object or list of entries). */
export function isWorldInfo(json: unknown): boolean {
  if (Array.isArray(json)) return json.every(isRecord);
  return isRecord(json) && (isRecord(json.entries) || Array.isArray(json.entries));
}

export function readWorldInfo(
  json: unknown,
  file: string,
): { entries: BookEntry[]; skipped: SkippedEntry[] } {
  const list = Array.isArray(json) ? json : isRecord(json) ? json.entries : undefined;
  if (!isRecord(list) && !Array.isArray(list)) throw badFile(file, "no World Info `entries` found");
  const entries: BookEntry[] = [];
  const skipped: SkippedEntry[] = [];
  for (const [id, entry] of Object.entries(list)) {
    if (!isRecord(entry)) {
      skipped.push({ title: `entry ${id}`, reason: "not a JSON object" });
      continue;
    }
    entries.push(splitEntry(ST_RULES, entry));
  }
  return { entries, skipped };
}

/** One card ready for export: what it says plus the `st:` fields it carried in. */
export interface StSource extends Mapped {
  st: Raw;
}

export function writeWorldInfo(cards: StSource[]): { entries: Record<string, Raw> } {
  const used = new Set<number>();
  for (const card of cards) {
    const uid = card.st.uid;
    if (typeof uid === "number" && Number.isInteger(uid)) used.add(uid);
  }
  const taken = new Set<number>();
  let next = 0;
  const entries: Record<string, Raw> = {};
  cards.forEach((card, index) => {
    let uid = card.st.uid;
    if (typeof uid !== "number" || !Number.isInteger(uid) || taken.has(uid)) {
      while (used.has(next) || taken.has(next)) next++;
      uid = next;
    }
    taken.add(uid as number);
    const entry = joinEntry(ST_RULES, card, { ...ST_DEFAULTS, displayIndex: index, ...card.st });
    entries[String(uid)] = Object.assign({ uid }, entry, { uid });
  });
  return { entries };
}
