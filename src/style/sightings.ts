/**
 * What one message of the person shows about how they talk: the dictionary's terms (one automaton,
 * scanner.ts), emoji (by Unicode property, emoji.ts), phrases agents hinted at before, and a few
 * measured traits of the message itself (voice: which language, how long, lowercase or not). Each
 * signal counts once per message however often it occurs. Code blocks, inline code, links, e-mail
 * addresses and quoted lines are blanked first: they are pasted, not said. Pure: text in, sightings
 * out; the store decides what they mean.
 */
import { EMAIL, LINK } from "../sanitize.ts";
import type { DictEntry } from "./dictionary.ts";
import { emojiKey, findEmoji } from "./emoji.ts";
import { foldMapped, styleFold } from "./fold.ts";
import { type ScannerTables, type ScanTerm, TermScanner } from "./scanner.ts";
import type { ContextTag, HabitKind, HabitSource } from "./types.ts";

/** Only this much of a message is read: a longer one is a paste, not a way of talking. */
export const SCAN_MAX = 20_000;

export interface Signal {
  kind: HabitKind;
  signal: string;
  locale: string;
  note?: string;
  useWhen: ContextTag[];
  avoidWhen: ContextTag[];
  source: HabitSource;
}

export interface Sighting extends Signal {
  /** Where in the read text (`Reading.text`) it was found; -1 for a measured trait. */
  start: number;
  end: number;
}

export interface Reading {
  /** The message as read: pasted parts blanked to spaces, so positions are the message's own. */
  text: string;
  sightings: Sighting[];
}

const EMOJI_AVOID: ContextTag[] = ["formal", "serious", "legal", "medical"];

/**
 * The measured traits (`voiceOf`), and the line each stands for in the brief; the ordinary ones
 * (a few sentences, capitals as usual) have none: they count against the others but say nothing.
 */
export const VOICE_LINES: Record<string, string | undefined> = {
  chinese: "Writes mostly in Chinese",
  english: "Writes mostly in English",
  mixed: "Mixes Chinese and English in one message",
  short: "Keeps messages short",
  medium: undefined,
  long: "Writes long, detailed messages",
  lowercase: "Types in lowercase, without capitals",
  capitals: undefined,
};

/** Traits that exclude each other: the brief names one of a group, when it dominates. */
export const VOICE_GROUPS: string[][] = [
  ["chinese", "english", "mixed"],
  ["short", "medium", "long"],
  ["lowercase", "capitals"],
];

export function signalOf(entry: DictEntry): Signal {
  return {
    kind: entry.kind,
    signal: entry.term,
    locale: entry.locale,
    ...(entry.note === undefined ? {} : { note: entry.note }),
    useWhen: entry.useWhen,
    avoidWhen: entry.avoidWhen,
    source: entry.source,
  };
}

/** The edges a kind's terms keep (scanner.ts): emoticons and punctuation have their own. */
export function shapeOf(kind: HabitKind): Pick<ScanTerm<unknown>, "shape"> {
  if (kind === "emoticon") return { shape: "emoticon" };
  return kind === "punctuation" ? { shape: "punctuation" } : {};
}

/**
 * What a dictionary is read with: a scanner over its terms and the blockers (`not`) of each, and its
 * emoji by signal. Emoji are found by property and then looked up, so 👍🏽 is one emoji (with 👍's
 * gloss), not 👍 found inside it.
 */
export interface DictionaryReader {
  terms: TermScanner<DictEntry>;
  emoji: ReadonlyMap<string, DictEntry>;
}

/** A scanner over the terms of `entries` (not emoji: they are found by property) and their blockers. */
export function dictionaryScanner<T>(
  entries: readonly DictEntry[],
  value: (e: DictEntry) => T,
): TermScanner<T> {
  const terms: ScanTerm<T>[] = [];
  for (const e of entries) {
    if (e.kind === "emoji") continue;
    terms.push({ term: e.term, value: value(e), ...shapeOf(e.kind), ...(e.more ? { more: e.more } : {}) });
  }
  for (const e of entries) for (const n of e.not ?? []) terms.push({ term: n, value: null });
  return new TermScanner(terms);
}

function emojiOf(entries: readonly DictEntry[]): Map<string, DictEntry> {
  return new Map(entries.filter((e) => e.kind === "emoji").map((e) => [emojiKey(e.term), e]));
}

/** The reader of a dictionary, built now. */
export function dictionaryReader(entries: readonly DictEntry[]): DictionaryReader {
  return { terms: dictionaryScanner(entries, (e) => e), emoji: emojiOf(entries) };
}

/** The reader of a dictionary saved with its scanner and emoji keys (_built-in-tables.ts): nothing is built. */
export function loadedReader(saved: {
  entries: readonly DictEntry[];
  scanner: ScannerTables;
  emoji: readonly (readonly [string, number])[];
}): DictionaryReader {
  const { entries, scanner } = saved;
  return {
    terms: new TermScanner<DictEntry>({ tables: scanner, values: entries }),
    emoji: new Map(saved.emoji.map(([key, i]) => [key, entries[i]!])),
  };
}

/** Pasted parts, each with a cheap test that the text may hold one. */
const PASTED: [string, RegExp][] = [
  ["```", /```[\s\S]*?(?:```|$)/g], // fenced code, closed or running to the end
  ["`", /`[^`\n]+`/g], // inline code
  ["://", LINK], // links (and www.), e-mail addresses: sanitize.ts's patterns, linear in a long run
  ["www.", LINK],
  ["@", EMAIL],
  [">", /^[ \t]*>.*$/gm], // quoted lines
];

/** `text` with pasted parts replaced by spaces of the same length. */
export function blankPasted(text: string): string {
  let out = text.length > SCAN_MAX ? text.slice(0, SCAN_MAX) : text;
  for (const [mark, re] of PASTED) {
    if (out.includes(mark)) out = out.replace(re, (m) => " ".repeat(m.length));
  }
  return out;
}

/**
 * The sightings of one message, first occurrence first. `learned` finds the phrases agents hinted at
 * (they have no dictionary entry, so the person's own use of them is found here).
 */
export function readMessage(
  message: string,
  dictionary: DictionaryReader,
  learned?: TermScanner<Signal>,
): Reading {
  const text = blankPasted(message);
  const out: Sighting[] = [];
  const seen = new Set<string>();
  const add = (s: Signal, start: number, end: number) => {
    const key = `${s.kind}\u0000${styleFold(s.signal)}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(sightingOf(s, start, end));
  };
  if (text.trim() === "") return { text, sightings: out };
  const { folded, at } = foldMapped(text);
  for (const hit of dictionary.terms.scan(folded)) add(signalOf(hit.value), at(hit.start), at(hit.end));
  if (learned) for (const hit of learned.scan(folded)) add(hit.value, at(hit.start), at(hit.end));
  for (const e of findEmoji(text)) add(emojiSignal(e.emoji, dictionary.emoji), e.start, e.end);
  for (const trait of voiceOf(text)) {
    add({ kind: "voice", signal: trait, locale: "any", useWhen: [], avoidWhen: [], source: "voice" }, -1, -1);
  }
  return { text, sightings: out };
}

/** `s` found at `start`..`end`. */
function sightingOf(s: Signal, start: number, end: number): Sighting {
  const out = copiedSignal(s) as Sighting;
  out.start = start;
  out.end = end;
  return out;
}

/**
 * A signal's own fields, copied one by one: learning a message copies each of its sightings a few
 * times (a sighting, what the inbox keeps, what a habit is told), and a spread of each, or a rest
 * without a field, cost more than the rest of the learning.
 */
export function copiedSignal(s: Signal): Signal {
  const out: Signal = {
    kind: s.kind,
    signal: s.signal,
    locale: s.locale,
    useWhen: s.useWhen,
    avoidWhen: s.avoidWhen,
    source: s.source,
  };
  if (s.note !== undefined) out.note = s.note;
  return out;
}

/** An emoji's signal: the dictionary's gloss and tags (its own, else its base without skin tone). */
export function emojiSignal(emoji: string, known: ReadonlyMap<string, DictEntry>): Signal {
  const found = known.get(emoji) ?? known.get(emoji.replace(/\p{Emoji_Modifier}/gu, ""));
  const entry = found && signalOf(found);
  const base = entry ?? {
    kind: "emoji",
    locale: "any",
    useWhen: [],
    avoidWhen: EMOJI_AVOID,
    source: "emoji",
  };
  return { ...base, kind: "emoji", signal: emoji };
}

const HAN = /\p{Script=Han}/u;

/** Han by range for the common blocks, by property for the rest (a supplementary plane's pair). */
function isHan(text: string, i: number, c: number): boolean {
  if (c >= 0x4e00 && c <= 0x9fff) return true;
  if (c < 0x2e80) return false;
  return HAN.test(String.fromCodePoint(text.codePointAt(i)!));
}

/**
 * The measured traits of a message: its language (Han against Latin letters; "mixed" when the lesser
 * is at least a fifth), its length (a Han character weighs like 2.5 Latin ones, about a word's share
 * of letters), and, for text with a dozen Latin letters or more, whether any is a capital.
 */
export function voiceOf(text: string): string[] {
  let han = 0;
  let latin = 0;
  let upper = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) latin++;
    else if (c >= 0x41 && c <= 0x5a) {
      latin++;
      upper++;
    } else if (c <= 0x20 || (c >= 0xdc00 && c <= 0xdfff)) {
      // whitespace, or the second half of a pair counted with its first
    } else if (isHan(text, i, c)) han++;
    else if (!/\s/.test(text[i]!)) other++;
  }
  const traits: string[] = [];
  const letters = han * 2.5 + latin;
  if (letters >= 2) {
    const hanShare = (han * 2.5) / letters;
    traits.push(hanShare >= 0.8 ? "chinese" : hanShare <= 0.2 ? "english" : "mixed");
  }
  const size = letters + other;
  if (size > 0) traits.push(size <= 30 ? "short" : size >= 400 ? "long" : "medium");
  if (latin >= 12 && latin >= han * 2.5) traits.push(upper === 0 ? "lowercase" : "capitals");
  return traits;
}
