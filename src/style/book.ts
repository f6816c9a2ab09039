/**
 * The style book of one vault: reads the person's messages into sightings (sightings.ts), applies
 * the rules (rules.ts) in the store (_db.ts), and answers with the brief (brief.ts, _revisions.ts).
 * Time comes from the injected clock only; the passing of it (expiry, archiving) is applied before
 * every answer and with every observation, so no daemon is needed. The dictionary and the scanners
 * are made on first need (the built-in ones are loaded, not built: built-in.ts), and the brief's and
 * preferences' code is loaded only when asked for, so a hook that observes loads the least.
 */
import { LoreError } from "../errors.ts";
import { exampleAround, sanitize } from "../sanitize.ts";
import { rowValues, StyleDb, stylePath, toRecord } from "./_db.ts";
import { conversationHash, habitId } from "./_ids.ts";
import { aging, findHabit, isPaused, listOrder, putHabit, shown, sweep } from "./_store.ts";
import { builtInReader } from "./built-in.ts";
import { guessLocale } from "./dictionary.ts";
import { emojiKey, isOneEmoji } from "./emoji.ts";
import { styleFold } from "./fold.ts";
import { type Hint, hintSignal } from "./hints.ts";
import { fate, type HabitRecord, pinned, type Seen, sighted } from "./rules.ts";
import { TermScanner } from "./scanner.ts";
import {
  type DictionaryReader,
  dictionaryReader,
  emojiSignal,
  readMessage,
  type Signal,
  shapeOf,
  signalOf,
} from "./sightings.ts";
import type {
  BriefAnswer,
  BriefItem,
  DictionaryInfo,
  Habit,
  HabitState,
  HintResult,
  StyleBook,
  StyleOptions,
} from "./types.ts";
import {
  dictionaryStamp,
  type LoadedDictionary,
  loadDictionary,
  VAULT_DICTIONARY,
} from "./vault-dictionary.ts";

export type { StyleBook };

export class Book implements StyleBook {
  private readonly db: StyleDb;
  private readonly now: () => number;
  private readonly warn: (line: string) => void;
  private dict?: LoadedDictionary & { reader?: DictionaryReader; byTerm?: Map<string, Signal> };
  private learnedCache?: { key: string; scanner: TermScanner<Signal> };

  constructor(
    private readonly vaultRoot: string,
    options: StyleOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((line) => process.stderr.write(`${line}\n`));
    this.db = new StyleDb(stylePath(vaultRoot), this.warn);
  }

  async observe(conversation: string, text: string): Promise<void> {
    return this.observeAll([{ conversation, text }]);
  }

  async observeAll(messages: readonly { conversation: string; text: string }[]): Promise<void> {
    const readings = messages
      .filter((m) => typeof m.text === "string" && m.text.trim() !== "")
      .map((m) => ({
        conv: conversationHash(String(m.conversation)),
        reading: readMessage(m.text, this.reader(), this.learned()),
      }))
      .filter((r) => r.reading.sightings.length > 0);
    if (readings.length === 0) return;
    const now = this.now();
    this.db.write((q) => {
      if (isPaused(q)) return;
      for (const { conv, reading } of readings) {
        for (const s of reading.sightings) {
          const id = habitId(s.kind, s.signal);
          const prev = q.habit.get(id);
          const example =
            prev?.example ?? (s.start >= 0 ? exampleAround(reading.text, s.start, s.end) : undefined);
          putHabit(
            q,
            sighted(prev ? toRecord(prev) : undefined, seenOf(id, s, example), conv, now, false),
            !prev,
          );
        }
      }
      sweep(q, now);
    });
  }

  async hint(conversation: string, hint: Hint): Promise<HintResult> {
    const s = hintSignal(hint, (signal) => this.lookup(signal));
    if (typeof s === "string") return { status: "refused", reason: s };
    const example = typeof hint.example === "string" ? sanitize(hint.example) : undefined;
    return this.record(conversation, habitId(s.kind, s.signal), (prev) =>
      seenOf("", s, prev?.example ?? example),
    );
  }

  async profileHint(conversation: string, preference: string): Promise<HintResult> {
    const { checkPreference, preferenceKey } = await import("./profile.ts");
    const checked = checkPreference(preference);
    if (!checked.ok) return { status: "refused", reason: checked.reason };
    const id = habitId("preference", preferenceKey(checked.text));
    return this.record(conversation, id, (prev) => ({
      id,
      signal: prev?.signal ?? checked.text,
      kind: "preference",
      locale: guessLocale(checked.text),
      useWhen: [],
      avoidWhen: [],
      source: "profile",
    }));
  }

  async list(filter: { state?: HabitState } = {}): Promise<Habit[]> {
    this.age();
    const all = this.db.read((q) => q.habits.all().map(toRecord), []);
    return all
      .filter((h) => filter.state === undefined || h.state === filter.state)
      .map(shown)
      .sort(listOrder);
  }

  async pin(id: string): Promise<Habit> {
    return this.change(id, (h) => pinned(h, true));
  }

  async unpin(id: string): Promise<Habit> {
    return this.change(id, (h) => pinned(h, false));
  }

  async forget(id: string): Promise<void> {
    const found = this.find(id);
    this.db.write((q) => {
      q.dropHabit.run(found.id);
      q.dropRevisions.run();
    });
  }

  async pause(): Promise<void> {
    this.db.write((q) => q.putMeta.run("paused", "1"));
  }

  async resume(): Promise<void> {
    this.db.write((q) => q.putMeta.run("paused", "0"));
  }

  async learning(): Promise<boolean> {
    return !this.db.read(isPaused, false);
  }

  async brief(options: { context?: string; since?: number } = {}): Promise<BriefAnswer> {
    this.age();
    // Loaded when asked for: a process that only observes (a hook) never loads the brief's code.
    const [{ briefItems }, { answer, isSettled, settleRevision, storedRevision }, { contextTags }] =
      await Promise.all([import("./brief.ts"), import("./_revisions.ts"), import("./context.ts")]);
    const context = typeof options.context === "string" ? contextTags(options.context) : [];
    const habits = this.db.read((q) => q.habits.all().map(toRecord), []).map(shown);
    const items = briefItems(habits);
    const current = this.db.read(storedRevision, { revision: 0, hash: "" });
    const revision = isSettled(current, items)
      ? current.revision
      : this.db.write((q) => settleRevision(q, items, this.now()));
    const kept = (n: number) =>
      this.db.read((q) => {
        const row = q.revision.get(n);
        return row ? (JSON.parse(row.items) as BriefItem[]) : undefined;
      }, undefined);
    return answer(items, revision, context, options.since, kept);
  }

  async dictionary(): Promise<DictionaryInfo> {
    return this.loaded().info;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** One hinted sighting, unless learning is paused. */
  private record(
    conversation: string,
    id: string,
    seen: (prev: HabitRecord | undefined) => Omit<Seen, "id">,
  ): HintResult {
    const conv = conversationHash(String(conversation));
    const now = this.now();
    return this.db.write((q): HintResult => {
      if (isPaused(q)) return { status: "paused" };
      const row = q.habit.get(id);
      const prev = row ? toRecord(row) : undefined;
      const next = sighted(prev, { ...seen(prev), id }, conv, now, true);
      putHabit(q, next, !prev);
      sweep(q, now);
      return { status: "recorded", habit: shown(next) };
    });
  }

  private change(idOrSignal: string, fn: (h: HabitRecord) => HabitRecord): Habit {
    const found = this.find(idOrSignal);
    return this.db.write((q) => {
      const row = q.habit.get(found.id);
      if (!row) throw new LoreError("not_found", `no habit ${idOrSignal} (it was forgotten or expired)`);
      const next = fn(toRecord(row));
      q.putHabit.run(...rowValues(next));
      return shown(next);
    });
  }

  private find(idOrSignal: string): HabitRecord {
    return findHabit(
      this.db.read((q) => q.habits.all().map(toRecord), []),
      idOrSignal,
    );
  }

  /** Expiry and archiving up to now, when there is a store at all. */
  private age(): void {
    const now = this.now();
    const due = this.db.read((q) => aging(q, now).some((h) => fate(h, now) !== "keep"), false);
    if (due) this.db.write((q) => sweep(q, now));
  }

  private loaded(): NonNullable<Book["dict"]> {
    const stamp = dictionaryStamp(`${this.vaultRoot}/${VAULT_DICTIONARY}`);
    if (this.dict === undefined || this.dict.stamp !== stamp) {
      this.dict = loadDictionary(this.vaultRoot);
      for (const p of this.dict.info.problems) this.warn(`lorecards: ${p}`);
    }
    return this.dict;
  }

  private reader(): DictionaryReader {
    const d = this.loaded();
    d.reader ??= d.builtInOnly ? builtInReader() : dictionaryReader(d.entries);
    return d.reader;
  }

  /** The dictionary's signal for a hinted phrase or emoji, when it has one. */
  private lookup(signal: string): Signal | undefined {
    const d = this.loaded();
    d.byTerm ??= new Map(d.entries.map((e) => [styleFold(e.term), signalOf(e)]));
    const known = d.byTerm.get(styleFold(signal));
    if (known) return known;
    return isOneEmoji(signal) ? emojiSignal(emojiKey(signal), this.reader().emoji) : undefined;
  }

  /** A scanner over the phrases agents hinted at, so the person's own use of them is seen. */
  private learned(): TermScanner<Signal> | undefined {
    const hinted = this.db.read((q) => q.bySource.all("hint").map(toRecord), []);
    if (hinted.length === 0) return undefined;
    const key = hinted.map((h) => h.id).join(",");
    if (this.learnedCache?.key !== key) {
      const terms = hinted.map((h) => ({ term: h.signal, value: recordSignal(h), ...shapeOf(h.kind) }));
      this.learnedCache = { key, scanner: new TermScanner(terms) };
    }
    return this.learnedCache.scanner;
  }
}

function seenOf(id: string, s: Signal, example: string | undefined): Seen {
  return { ...s, id, ...(example === undefined ? {} : { example }) };
}

function recordSignal(h: HabitRecord): Signal {
  const { kind, signal, locale, note, useWhen, avoidWhen, source } = h;
  return { kind, signal, locale, ...(note === undefined ? {} : { note }), useWhen, avoidWhen, source };
}
