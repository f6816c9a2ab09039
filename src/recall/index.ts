/**
 * Recall: the one pipeline behind the gateway, the hook, `try` and `/api/try`. It answers "which
 * cards belong in front of the model now, and as what exact text?" with stages over one selection
 * (decide.ts, then pipeline.ts; the stages are stages/), each recording its outcome per card, and
 * returns the selection, one rendered block per placement (or an index), and nothing else to keep in
 * step: every other view of the answer is a function of views.ts.
 * The VaultSource (source.ts) keeps the compiled vault current; the pipeline itself never caches,
 * watches or writes. It never writes cards; recording what was injected is the caller's job
 * (state/), so a dry run is just a call. `Engine` is the façade surfaces hold: a source plus options.
 */
import { warnOnStderr } from "../errors.ts";
import type { Segmenter } from "../match/index.ts";
import { jiebaSegmenter, threadSegmenter } from "../match/index.ts";
import {
  type BookInfo,
  MAIN_BOOK,
  openVault,
  SETTINGS_FILE,
  SettingsFile,
  type Vault,
  type VaultSettings,
} from "../vault/index.ts";
import type { Compiled, Loaded } from "./_compiled.ts";
import { Library } from "./_library.ts";
import type { BookAsk, ChosenBooks } from "./books.ts";
import { earlierCards } from "./earlier.ts";
import { DEFAULT_SCAN_DEPTH, recall, unknownNames } from "./pipeline.ts";
import { withSettings } from "./settings.ts";
import { type SourceOptions, VaultSource } from "./source.ts";
import type { RecallOptions, RecallResult, Turn } from "./types.ts";

export { type Compiled, findNamed } from "./_compiled.ts";
export { type BookAsk, bookNamesIn, type ChosenBooks, chooseBooks, namedAt } from "./books.ts";
export { type EarlierAsk, earlierHeading, earlierIn } from "./earlier.ts";
export { simulate } from "./history.ts";
export { hitEntry } from "./hit-entry.ts";
export {
  DEFAULT_BUDGET,
  DEFAULT_SCAN_DEPTH,
  MESSAGE_READ_MAX,
  namesIn,
  type PipelineOptions,
  readOf,
  recall,
  tierHintsIn,
} from "./pipeline.ts";
export { type RefreshReport, refreshVault } from "./refresh.ts";
export * from "./selection.ts";
export { type Refresher, type SourceOptions, VaultSource } from "./source.ts";
export { lineChars, listedCards, newQueryId, recallRecordOf } from "./stages/index-block.ts";
export { idOf } from "./stages/notice.ts";
export { aroundSystemText, hasOwnPlace, tierFor } from "./stages/place.ts";
export { DEFAULT_FRAMING, firstLine, renderCard, renderContext } from "./stages/render.ts";
export { tokenCounter } from "./tokens.ts";
export { parseTurns, type TurnsInput } from "./turns.ts";
export { typedText } from "./typed-text.ts";
export * from "./types.ts";
export { cardVersion, sentVersions } from "./version.ts";
export * from "./views.ts";

const SETTINGS_RECHECK_MS = 1000;

export interface EngineOptions extends SourceOptions {
  /** The engine of one book of a vault (_library.ts): it reads no books of its own. */
  book?: boolean;
  /** Create the vault with example cards when it does not exist (the default vault does). */
  create?: boolean;
  /**
   * Word segmentation for Chinese/Japanese (default: jieba, loaded on demand; on a thread of its own in a
   * process that watches the vault). `false` = none.
   */
  segmenter?: (() => Promise<Segmenter>) | false;
  /** Where a problem with the vault's settings.yaml is said (default: stderr). */
  warn?: (line: string) => void;
}

export class Engine {
  readonly source: VaultSource;
  private readonly segmenter?: () => Promise<Segmenter>;
  private readonly settingsFile: SettingsFile;
  /** The vault's books; absent for the engine of one book (books do not hold books). */
  private readonly library?: Library;

  constructor(
    readonly vault: Vault,
    options: EngineOptions = {},
  ) {
    const warn = options.warn ?? warnOnStderr;
    // A server re-reads settings.yaml when its watcher names it, else at most once a second.
    this.settingsFile = new SettingsFile(vault.root, warn, options.watch ? SETTINGS_RECHECK_MS : 0);
    const onFile = (rel: string) => {
      if (rel === SETTINGS_FILE) this.settingsFile.invalidate();
      this.library?.onFile(rel);
      options.onFile?.(rel);
    };
    this.source = new VaultSource(vault, { ...options, onFile });
    // A process that watches the vault serves requests: jieba loads and cuts on a thread of its own there.
    const segmenter = options.watch ? threadSegmenter : jiebaSegmenter;
    this.segmenter = options.segmenter === false ? undefined : (options.segmenter ?? segmenter);
    if (options.book) return;
    // A book's engine: the server's options, read in this process, its files named by this watcher.
    const bookOptions: EngineOptions = {
      ...options,
      book: true,
      create: false,
      refresher: undefined,
      keeper: undefined,
      onFile: undefined,
      ...(options.watch && { watch: true, watcher: false }),
    };
    this.library = new Library(
      this,
      (root) => new Engine(openVault(root), bookOptions),
      warn,
      options.watch ? SETTINGS_RECHECK_MS : 0,
    );
  }

  /**
   * Mark the vault as changed (an in-process writer calls this after a save): `paths` (vault-relative)
   * when it knows which files it wrote, so only those are compared.
   */
  invalidate(paths?: readonly string[]): void {
    this.source.invalidate(paths);
  }

  close(): void {
    this.source.close();
    this.library?.close();
  }

  /** Cards and broken cards as of now, re-parsing only what changed on disk. */
  async index(): Promise<Loaded> {
    return (await this.source.current()).loaded;
  }

  /** The books of the vault as they are now, `main` (the vault's own cards) first. */
  books(): BookInfo[] {
    return this.library?.shelf.current() ?? [];
  }

  /** A book was made or changed in this process (an import): the next look at the books reads them. */
  booksChanged(): void {
    this.library?.shelf.recheck();
  }

  /** The engine of one book (`main`: this one), or undefined when the vault has no such book. */
  book(name: string): Engine | undefined {
    return this.library?.reader(name) as Engine | undefined;
  }

  /** Which books a recall asking `ask` reads (recall/books.ts). */
  chooseBooks(ask: BookAsk = {}): ChosenBooks {
    return this.library?.choose(ask) ?? { books: [MAIN_BOOK], unknown: [] };
  }

  /** The vault version a recall asking `ask` reads: the vault's own, or its chosen books as one. */
  async compiled(ask?: BookAsk): Promise<Compiled> {
    return (await this.read(ask)).compiled;
  }

  private async read(ask?: BookAsk) {
    if (this.library) return this.library.read(ask);
    return {
      compiled: await this.source.current(),
      settings: this.settingsFile.current(),
      chosen: undefined,
    };
  }

  /** The names among `names` that find no card (for `ask`: a surface that refuses them says which). */
  async unknownNames(names: readonly string[], books?: BookAsk): Promise<string[]> {
    // No names, nothing to look up: a cold `try` should not check the vault twice.
    if (names.length === 0) return [];
    return unknownNames(await this.compiled(books), names);
  }

  /** The vault's settings.yaml as it reads now (the editor shows the budget it sets). */
  settings(): VaultSettings {
    return this.settingsFile.current();
  }

  /**
   * How many turns, newest first, a recall with this scan depth reads: the current message and two per
   * level of depth before it (a user and an assistant message), the depth being the scan depth or the
   * largest `scan_depth` a card of the books read asks for (match/). Turns before these change nothing.
   */
  async reach(scanDepth: number = DEFAULT_SCAN_DEPTH, books?: BookAsk): Promise<number> {
    return 1 + 2 * Math.max(scanDepth, (await this.compiled(books)).loaded.matcher.maxDepth);
  }

  private readonly saidUnknown = new Set<string>();

  /** A book asked for that the vault does not have: said once per name (a server hears it per request). */
  private unknownBook(name: string, warn: ((line: string) => void) | undefined): void {
    if (this.saidUnknown.has(name) || this.saidUnknown.size >= 100) return;
    this.saidUnknown.add(name);
    warn?.(
      `lorecards: no book "${name}" in ${this.vault.root}: left out (its books: ${this.books()
        .map((b) => b.name)
        .join(", ")})`,
    );
  }

  /** One recall; the settings.yaml of the books read fill in what `opts` leaves unset. */
  async recall(turns: readonly Turn[], opts: RecallOptions = {}): Promise<RecallResult> {
    const { compiled, settings, chosen } = await this.read(opts.books);
    for (const name of chosen?.unknown ?? []) this.unknownBook(name, opts.warn);
    const options = withSettings(opts, settings);
    // An earlier state is read from the vault's history, which only the engine holds.
    const earlier = opts.earlier?.length
      ? earlierCards(this.vault, compiled, opts.earlier, opts.warn)
      : undefined;
    const result = await recall(compiled, turns, {
      ...options,
      segmenter: this.segmenter,
      earlierCards: earlier,
    });
    const books = chosen?.books ?? [MAIN_BOOK];
    return books.length === 1 && books[0] === MAIN_BOOK ? result : { ...result, books };
  }
}

/**
 * Open a vault and its engine. Cold processes that want the next one to start warm pass
 * `persist: true` (the hook, `try`); so do long-running servers, which then save a rebuild.
 */
export async function openEngine(root: string, options: EngineOptions = {}): Promise<Engine> {
  const vault = openVault(root, { create: options.create ?? false });
  return new Engine(vault, options);
}
