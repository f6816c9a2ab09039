/**
 * The style book of one vault: reads the person's messages into sightings (sightings.ts), applies
 * the rules (rules.ts) in the store (_db.ts), and answers with the brief (brief.ts, _revisions.ts).
 * Time comes from the injected clock only; the passing of it (expiry, archiving) is applied before
 * every answer and with every observation, so no daemon is needed. The dictionary and the scanners
 * are made on first need (the built-in ones are loaded, not built: built-in.ts), and the brief's and
 * preferences' code is loaded only when asked for, so a hook that observes loads the least.
 */
import { LoreError, warnOnStderr } from "../errors.ts";
import { sanitize } from "../sanitize.ts";
import { rowValues, StyleDb, stylePath, toRecord } from "./_db.ts";
import { markHinted, settleHinted } from "./_hinted.ts";
import { conversationHash, habitId } from "./_ids.ts";
import { Inbox, inboxPath } from "./_inbox.ts";
import { learnBatch, type ReadContext, readObserved, seenOf } from "./_learn.ts";
import { Readers } from "./_readers.ts";
import type { InitResult, InitState } from "./_seed.ts";
import { StyleSettingsFile } from "./_settings-file.ts";
import { aging, findHabit, isPaused, listOrder, putHabit, shown, sweep } from "./_store.ts";
import { guessLocale } from "./dictionary.ts";
import { distillProblem, type Hint, hintSignal } from "./hints.ts";
import { fate, type HabitRecord, pinned, type Rules, type Seen, sighted } from "./rules.ts";
import type { StyleScore } from "./score.ts";
import type { Resolved } from "./settings.ts";
import type {
  BriefAnswer,
  BriefItem,
  DictionaryInfo,
  DistillInput,
  DistillResult,
  Habit,
  HabitState,
  HintResult,
  StyleBook,
  StyleOptions,
} from "./types.ts";

export type { StyleBook };

export class Book implements StyleBook {
  private readonly db: StyleDb;
  private readonly now: () => number;
  private readonly warn: (line: string) => void;
  private readonly readers: Readers;
  private readonly settingsFile: StyleSettingsFile;

  constructor(
    private readonly vaultRoot: string,
    options: StyleOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? warnOnStderr;
    const inbox = new Inbox(inboxPath(vaultRoot), learnBatch, this.warn);
    this.db = new StyleDb(stylePath(vaultRoot), this.warn, inbox);
    this.settingsFile = new StyleSettingsFile(vaultRoot, options.settings);
    this.readers = new Readers(vaultRoot, this.warn);
  }

  async observe(conversation: string, text: string): Promise<void> {
    return this.observeAll([{ conversation, text }]);
  }

  async observeAll(messages: readonly { conversation: string; text: string }[]): Promise<void> {
    if (!messages.some((m) => typeof m.text === "string" && m.text.trim() !== "")) return;
    const rules = this.rules();
    const read = readObserved(messages, this.readContext(rules));
    if (read.length === 0) return;
    const now = this.now();
    this.db.write((q) => {
      settleHinted(this.vaultRoot, q);
      learnBatch(q, read, now, rules);
    });
  }

  /** What messages are read with: the dictionary, the hinted phrases (a read of the store), the rules. */
  readContext(rules: Rules): ReadContext {
    // Once for the batch: each is a stat, and the hinted phrases a read of the store.
    return { reader: this.readers.reader(), learned: this.learned(), keep: rules.exampleLength };
  }

  async hint(conversation: string, hint: Hint): Promise<HintResult> {
    const s = hintSignal(hint, (signal) => this.readers.lookup(signal));
    if (typeof s === "string") return { status: "refused", reason: s };
    const keep = this.rules().exampleLength;
    const example = typeof hint.example === "string" && keep > 0 ? sanitize(hint.example, keep) : undefined;
    return this.record(conversation, habitId(s.kind, s.signal), (prev) =>
      seenOf("", s, prev?.example ?? example),
    );
  }

  async profileHint(conversation: string, preference: string): Promise<HintResult> {
    return this.preference(conversation, preference, false);
  }

  /** A preference: one sighting, and active at once when the person `reviewed` it (distill). */
  private async preference(conversation: string, preference: string, reviewed: boolean): Promise<HintResult> {
    const { checkPreference, preferenceKey } = await import("./profile.ts");
    const checked = checkPreference(preference);
    if (!checked.ok) return { status: "refused", reason: checked.reason };
    const id = habitId("preference", preferenceKey(checked.text));
    const seen = (prev: HabitRecord | undefined): Omit<Seen, "id"> => ({
      signal: prev?.signal ?? checked.text,
      kind: "preference",
      locale: guessLocale(checked.text),
      useWhen: [],
      avoidWhen: [],
      source: "profile",
    });
    return this.record(conversation, id, seen, reviewed);
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
    const [{ currentBrief, markServed }, { answer }, { contextTags }] = await Promise.all([
      import("./_briefing.ts"),
      import("./_revisions.ts"),
      import("./context.ts"),
    ]);
    const context = typeof options.context === "string" ? contextTags(options.context) : [];
    const { items, revision } = currentBrief(this.db, this.rules(), this.now());
    const kept = (n: number) =>
      this.db.read((q) => {
        const row = q.revision.get(n);
        return row ? (JSON.parse(row.items) as BriefItem[]) : undefined;
      }, undefined);
    const out = answer(items, revision, context, options.since, kept);
    if (out.kind !== "ack") markServed(this.db, revision);
    return out;
  }

  async score(options: { since?: number } = {}): Promise<StyleScore> {
    this.age();
    const { scoreNow } = await import("./_briefing.ts");
    const { inactiveTtlDays } = this.settingsFile.resolved().settings;
    return scoreNow(this.db, this.rules(), this.now(), { inactiveTtlDays, since: options.since });
  }

  async initialization(): Promise<InitState> {
    const { initState } = await import("./_seed.ts");
    return this.db.read(initState, initState(undefined));
  }

  async initialize(submission: unknown): Promise<InitResult> {
    const [{ readInit }, { applyInit, initSignals }] = await Promise.all([
      import("./init.ts"),
      import("./_seed.ts"),
    ]);
    const sub = readInit(submission);
    if (typeof sub === "string") return { status: "refused", reason: sub };
    const signals = initSignals(sub, (signal) => this.readers.lookup(signal));
    if (typeof signals === "string") return { status: "refused", reason: signals };
    const now = this.now();
    const rules = this.rules();
    return this.db.write((q) => applyInit(q, sub, signals, now, rules));
  }

  async distill(conversation: string, input: DistillInput): Promise<DistillResult> {
    const problem = distillProblem(input);
    if (problem) throw new LoreError("invalid_input", problem);
    const out: DistillResult = { expressions: [], preferences: [] };
    for (const e of input.expressions ?? []) out.expressions.push(await this.hint(conversation, e));
    for (const p of input.preferences ?? [])
      out.preferences.push(await this.preference(conversation, p, true));
    return out;
  }

  async dictionary(): Promise<DictionaryInfo> {
    return this.readers.info();
  }

  async settings(): Promise<Resolved> {
    return this.settingsFile.resolved();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** One hinted sighting, unless learning is paused. */
  private record(
    conversation: string,
    id: string,
    seen: (prev: HabitRecord | undefined) => Omit<Seen, "id">,
    reviewed = false,
  ): HintResult {
    const conv = conversationHash(String(conversation));
    const now = this.now();
    const rules = this.rules();
    return this.db.write((q): HintResult => {
      if (isPaused(q)) return { status: "paused" };
      if (seen(undefined).source === "hint") markHinted(this.vaultRoot);
      const row = q.habit.get(id);
      const prev = row ? toRecord(row) : undefined;
      const sighting = sighted(prev, { ...seen(prev), id }, conv, now, true, rules);
      const next: HabitRecord = reviewed ? { ...sighting, state: "active" } : sighting;
      putHabit(q, next, !prev);
      sweep(q, now, rules);
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
    const rules = this.rules();
    const due = this.db.read((q) => aging(q, now, rules).some((h) => fate(h, now, rules) !== "keep"), false);
    if (due) this.db.write((q) => sweep(q, now, rules));
  }

  /** The rules under the settings in force (settings.yaml re-read when it changed). */
  private rules(): Rules {
    return this.settingsFile.rules();
  }

  /** A scanner over the phrases agents hinted at, so the person's own use of them is seen. */
  private learned() {
    return this.readers.learned(this.db.read((q) => q.bySource.all("hint").map(toRecord), []));
  }
}
