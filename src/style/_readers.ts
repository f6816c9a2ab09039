/**
 * What one book reads messages with, made on first need and kept while nothing changes: the
 * dictionary in use (built-in, with the vault's `style-dictionary.yaml` when there is one, re-read when
 * that file changes), a lookup of a hinted phrase or emoji in it, and a scanner over the phrases agents
 * hinted at (they have no dictionary entry, so the person's own use of them is found by this one).
 */
import { builtInReader } from "./built-in.ts";
import { emojiKey, isOneEmoji } from "./emoji.ts";
import { styleFold } from "./fold.ts";
import type { HabitRecord } from "./rules.ts";
import { TermScanner } from "./scanner.ts";
import {
  type DictionaryReader,
  dictionaryReader,
  emojiSignal,
  type Signal,
  shapeOf,
  signalOf,
} from "./sightings.ts";
import type { DictionaryInfo } from "./types.ts";
import {
  dictionaryStamp,
  type LoadedDictionary,
  loadDictionary,
  VAULT_DICTIONARY,
} from "./vault-dictionary.ts";

export class Readers {
  private dict?: LoadedDictionary & { reader?: DictionaryReader; byTerm?: Map<string, Signal> };
  private learnedCache?: { key: string; scanner: TermScanner<Signal> };

  constructor(
    private readonly vaultRoot: string,
    private readonly warn: (line: string) => void,
  ) {}

  info(): DictionaryInfo {
    return this.loaded().info;
  }

  reader(): DictionaryReader {
    const d = this.loaded();
    d.reader ??= d.builtInOnly ? builtInReader() : dictionaryReader(d.entries);
    return d.reader;
  }

  /** The dictionary's signal for a hinted phrase or emoji, when it has one. */
  lookup(signal: string): Signal | undefined {
    const d = this.loaded();
    d.byTerm ??= new Map(d.entries.map((e) => [styleFold(e.term), signalOf(e)]));
    const known = d.byTerm.get(styleFold(signal));
    if (known) return known;
    return isOneEmoji(signal) ? emojiSignal(emojiKey(signal), this.reader().emoji) : undefined;
  }

  /** A scanner over the phrases agents hinted at (`hinted`: those habits), or none. */
  learned(hinted: readonly HabitRecord[]): TermScanner<Signal> | undefined {
    if (hinted.length === 0) return undefined;
    const key = hinted.map((h) => h.id).join(",");
    if (this.learnedCache?.key !== key) {
      const terms = hinted.map((h) => ({ term: h.signal, value: recordSignal(h), ...shapeOf(h.kind) }));
      this.learnedCache = { key, scanner: new TermScanner(terms) };
    }
    return this.learnedCache.scanner;
  }

  private loaded(): NonNullable<Readers["dict"]> {
    const stamp = dictionaryStamp(`${this.vaultRoot}/${VAULT_DICTIONARY}`);
    if (this.dict === undefined || this.dict.stamp !== stamp) {
      this.dict = loadDictionary(this.vaultRoot);
      for (const p of this.dict.info.problems) this.warn(`lorecards: ${p}`);
    }
    return this.dict;
  }
}

function recordSignal(h: HabitRecord): Signal {
  const { kind, signal, locale, note, useWhen, avoidWhen, source } = h;
  return { kind, signal, locale, ...(note === undefined ? {} : { note }), useWhen, avoidWhen, source };
}
