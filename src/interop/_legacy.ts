/**
 * The mapping tables of lorecards before issue 11, kept only to repair what they imported. They read
 * SillyTavern's selectiveLogic 1 as AND ALL and 3 as NOT ANY (it is NOT ALL and AND ALL), halved
 * `scanDepth` into turns, and left `constant`, `position` and every other setting verbatim under
 * `st:` / `card:`, where nothing acted on them. Joining a card with these tables gives back the entry
 * it was imported from (as far as the card was not edited since); today's tables then read that entry
 * as they read any other (repair.ts).
 */

import { bookTitle } from "./_book-rules.ts";
import {
  emptySecondary,
  type FieldRule,
  isRecord,
  type Mapped,
  numberOr,
  type Raw,
  stringList,
} from "./_model.ts";
import { bodyOf } from "./_shared-rules.ts";
import { stTitle } from "./_st-rules.ts";

/** The old reading of a logic number: 1 all, 2 and 3 not, anything else any. */
function oldBucket(logic: number): "any" | "all" | "not" {
  return logic === 1 ? "all" : logic === 2 || logic === 3 ? "not" : "any";
}

/** The old writing: the first non-empty of any, all, not, as 0, 1, 2. */
export function oldLogic(m: Mapped): { words: string[]; logic: number } {
  const { any, all, not } = m.secondary;
  if (any.length > 0 || (all.length === 0 && not.length === 0)) return { words: [...any], logic: 0 };
  if (all.length > 0) return { words: [...all], logic: 1 };
  return { words: [...not], logic: 2 };
}

function oldSecondary(words: unknown, logic: number) {
  const secondary = emptySecondary();
  secondary[oldBucket(logic)] = stringList(words);
  return secondary;
}

const body: FieldRule = {
  fields: ["content"],
  read: (e) => ({ body: bodyOf(e.content) }),
  write: (m) => ({ content: m.body }),
};

export const LEGACY_ST_RULES: FieldRule[] = [
  {
    fields: ["key"],
    read: (e) => ({ keywords: stringList(e.key) }),
    write: (m) => ({ key: [...m.keywords] }),
  },
  {
    fields: ["keysecondary", "selectiveLogic"],
    read: (e) => ({ secondary: oldSecondary(e.keysecondary, numberOr(e.selectiveLogic, 0)) }),
    write: (m) => {
      const { words, logic } = oldLogic(m);
      return { keysecondary: words, selectiveLogic: logic };
    },
  },
  { fields: ["comment"], read: (e) => ({ title: stTitle(e) }), write: (m) => ({ comment: m.title }) },
  body,
  {
    fields: ["order"],
    read: (e) => ({ priority: numberOr(e.order, 100) }),
    write: (m) => ({ order: m.priority ?? 100 }),
  },
  {
    fields: ["scanDepth"],
    read: (e) => {
      const d = typeof e.scanDepth === "number" ? e.scanDepth : typeof e.depth === "number" ? e.depth : null;
      return { scanDepth: d === null ? null : Math.ceil(d / 2) };
    },
    write: (m) => ({ scanDepth: m.scanDepth === null ? null : m.scanDepth * 2 }),
  },
  {
    fields: ["disable"],
    read: (e) => ({ enabled: e.disable !== true }),
    write: (m) => ({ disable: !m.enabled }),
  },
];

export const LEGACY_BOOK_RULES: FieldRule[] = [
  {
    fields: ["keys"],
    read: (e) => ({ keywords: stringList(e.keys) }),
    write: (m) => ({ keys: [...m.keywords] }),
  },
  {
    fields: ["secondary_keys", "selective"],
    read: (e) => {
      const logic = isRecord(e.extensions) ? numberOr(e.extensions.selectiveLogic, 0) : 0;
      return { secondary: e.selective === true ? oldSecondary(e.secondary_keys, logic) : emptySecondary() };
    },
    write: (m) => ({ secondary_keys: oldLogic(m).words, selective: true }),
  },
  {
    fields: ["name", "comment"],
    read: (e) => ({ title: bookTitle(e) }),
    write: (m) => ({ comment: m.title }),
  },
  body,
  {
    fields: ["insertion_order"],
    read: (e) => ({ priority: numberOr(e.insertion_order, numberOr(e.priority, 100)) }),
    write: (m) => ({ insertion_order: m.priority ?? 100 }),
  },
  {
    fields: ["enabled"],
    read: (e) => ({ enabled: e.enabled !== false }),
    write: (m) => ({ enabled: m.enabled }),
  },
];

/**
 * The old book export's finishing touches: selectiveLogic under `extensions` (a kept number stays while
 * it falls in the same old bucket), and the kept decorator lines back in front of the content.
 */
export function legacyBookFinish(out: Raw, m: Mapped): Raw {
  const { logic } = oldLogic(m);
  const ext = isRecord(out.extensions) ? out.extensions : {};
  const kept = typeof ext.selectiveLogic === "number" ? ext.selectiveLogic : 0;
  if (oldBucket(kept) !== oldBucket(logic)) out.extensions = { ...ext, selectiveLogic: logic };
  const decorators = Array.isArray(out.decorators)
    ? out.decorators.filter((d): d is string => typeof d === "string")
    : [];
  delete out.decorators;
  if (decorators.length > 0) {
    const text = String(out.content ?? "");
    out.content = text === "" ? decorators.join("\n") : `${decorators.join("\n")}\n${text}`;
  }
  return out;
}
