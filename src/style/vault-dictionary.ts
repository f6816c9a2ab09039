/**
 * The vault's own dictionary, `<vault>/style-dictionary.yaml`, written by its owner:
 *
 *   entries:
 *     - term: tiny but mighty
 *       kind: idiolect            # slang, abbreviation, catchphrase, laughter, address, dialect,
 *       locale: en                #   idiolect (default), emoji, emoticon, punctuation
 *       note: our team motto
 *       avoid_when: [legal, medical]
 *     - 搞快点                     # a bare term: kind idiolect, locale from its script
 *   ignore: [lol, "😂"]           # built-in terms to stop noticing
 *
 * Its entries join the built-in ones (replacing one with the same folded term). It is stat'ed before
 * each use and read again only when it changed, so a running gateway follows edits. A problem never
 * stops observation: the bad entry (or the whole file, when it is not YAML) is skipped and said once
 * per version of the file; `yaml` is loaded only when there is a file to read.
 */

import { statSync } from "node:fs";
import path from "node:path";
import { describeError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { yamlData } from "../yaml-data.ts";
import { builtInEntries } from "./built-in.ts";
import { type DictEntry, mergeDictionaries, readDictionary } from "./dictionary.ts";
import type { DictionaryInfo } from "./types.ts";

export const VAULT_DICTIONARY = "style-dictionary.yaml";

export interface LoadedDictionary {
  entries: DictEntry[];
  info: DictionaryInfo;
  /** Which version of the vault's file this is (size and mtime), to notice an edit. */
  stamp: string;
  /** True when there is no vault file: the built-in reader (built-in.ts) serves as it is. */
  builtInOnly: boolean;
}

export function dictionaryStamp(file: string): string {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.size}:${s.mtimeMs}` : "none";
}

/** The built-in entries and the vault's, merged, with what was wrong in the vault's file. */
export function loadDictionary(vaultRoot: string): LoadedDictionary {
  const file = path.join(vaultRoot, VAULT_DICTIONARY);
  const stamp = dictionaryStamp(file);
  const builtIn = builtInEntries();
  if (stamp === "none") {
    const info = { builtIn: builtIn.length, user: 0, file, problems: [] };
    return { entries: builtIn, info, stamp, builtInOnly: true };
  }
  const problems: string[] = [];
  const user = readVaultFile(file);
  problems.push(...user.problems);
  const merged = mergeDictionaries(builtIn, user, VAULT_DICTIONARY);
  problems.push(...merged.problems);
  return {
    entries: merged.entries,
    info: { builtIn: builtIn.length, user: user.entries.length, file, problems },
    stamp,
    builtInOnly: false,
  };
}

function readVaultFile(file: string): { entries: DictEntry[]; ignore: string[]; problems: string[] } {
  let text: string;
  try {
    text = readPlain(file, { name: VAULT_DICTIONARY });
  } catch (err) {
    const problem = `${VAULT_DICTIONARY}: cannot be read (${describeError(err)}); only the built-in dictionary is used`;
    return { entries: [], ignore: [], problems: [problem] };
  }
  let data: unknown;
  try {
    data = yamlData(text);
  } catch (err) {
    const first = describeError(err).split("\n")[0];
    const problem = `${VAULT_DICTIONARY}: not valid YAML (${first}); only the built-in dictionary is used`;
    return { entries: [], ignore: [], problems: [problem] };
  }
  return readDictionary(data, "user", VAULT_DICTIONARY);
}
