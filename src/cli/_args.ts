/**
 * Flags that more than one command takes, with their help built from the defaults table
 * (src/defaults.ts): citty prints a flag's `default` itself ("(Default: 800)"), so no help text repeats
 * a number by hand. Flags whose presence matters (mcp's `--host` and `--port` apply only with `--http`)
 * quote the default in their description instead of setting it.
 */

import type { TierHint } from "../card/types.ts";
import {
  DEFAULTS,
  INJECT_MODES,
  INJECT_PLACES,
  type InjectMode,
  type InjectPlace,
  LORE_SWITCHES,
  type LoreSwitch,
  REACHES,
  type Reach,
} from "../defaults.ts";
import { describeError, LoreError } from "../errors.ts";
import { type BookAsk, bookNamesIn, type Engine, namesIn, tierHintsIn } from "../recall/index.ts";
import type { RecallOptions } from "../recall/types.ts";
import { wholeNumber } from "./_shared.ts";

const count = (value: number) => String(value);

export const budgetArg = {
  budget: {
    type: "string",
    description: `characters of the automatic half per injection (default: settings.yaml, else ${DEFAULTS.budget}; none with only a token budget; 0 = declared only)`,
    valueHint: "N",
  },
} as const;

const depth = {
  type: "string",
  description: "turns of history scanned for keywords (0 = the current message only)",
  default: count(DEFAULTS.scanDepth),
  valueHint: "N",
} as const;

/** One name on every command that scans history (the gateway's old `--window` is an alias: index.ts). */
export const scanDepthArg = { "scan-depth": depth } as const;

/** The hook counts prompts; the gateway counts turns. */
export function reinjectArg(unit: "prompts" | "turns") {
  return {
    "reinject-after": {
      type: "string",
      description: `${unit} before the same card may go in again; 0 = every time`,
      default: count(DEFAULTS.reinjectAfter),
      valueHint: "N",
    },
  } as const;
}

/**
 * The gateway's: with replay a card stays in context while the message it went into is replayed, so
 * by default it is not sent again; a number re-sends it after that many turns all the same.
 */
export const gatewayReinjectArg = {
  "reinject-after": {
    type: "string",
    description: "turns before a card still in context may go in again (default: never; 0 = every time)",
    valueHint: "N",
  },
} as const;

// Not `as const`: citty types an enum's value from a mutable `options` array.
export const injectArg = {
  inject: {
    type: "enum" as const,
    options: [...INJECT_PLACES] as InjectPlace[],
    description:
      "user: before the last user message; system: a system prompt; index: a compact index of the cards before the last user message",
    default: DEFAULTS.inject,
  },
};

/** The hook's and `try`'s `--inject`: the cards' text, or an index of them (README "Index mode and adoption"). */
export const injectModeArg = {
  inject: {
    type: "enum" as const,
    options: [...INJECT_MODES] as InjectMode[],
    description:
      "cards: the cards' text; index: one line per card (score | card | words), opened with MCP read_card",
    default: "cards",
  },
};

export const framingArg = {
  framing: {
    type: "string",
    description: `the line that introduces the cards (default ${JSON.stringify(DEFAULTS.framing)})`,
  },
} as const;

/** Where a server listens: `what` says what it is, `port` its default. */
export function listenArgs(what: string, port: number) {
  return {
    host: { type: "string", description: `where ${what} listens`, default: DEFAULTS.host },
    port: { type: "string", description: "port (0 = any free port)", default: count(port) },
  } as const;
}

/** `--log` / `--no-log`: whether the hit log (hits.jsonl) is written. */
export function logArg(description: string, negativeDescription: string) {
  return { log: { type: "boolean", default: true, description, negativeDescription } } as const;
}

/** `--style-brief`: the style brief goes in at the start (README "Style memory"); off by default. */
export const styleBriefArg = {
  "style-brief": {
    type: "boolean",
    description: "start each conversation (gateway) or session (hook) with the style brief, after the guide",
  },
} as const;

/** `--learn` / `--no-learn`: whether style memory learns from the person's messages (README "Style memory"). */
export const learnArg = {
  learn: {
    type: "boolean",
    default: true,
    description:
      "learn how the person talks from their own messages (style memory; settings.yaml learn: false stops it too)",
    negativeDescription: "learn nothing: no message is handed to style memory",
  },
} as const;

export function allowHostArg(description: string) {
  return { "allow-host": { type: "string", description, valueHint: "NAMES" } } as const;
}

/**
 * What every recall surface (`try`, `hook`, `gateway`) takes besides its budget and window. None has a
 * citty default: a flag left out lets the vault's settings.yaml speak (README "settings.yaml"), so the
 * defaults are quoted in the descriptions instead.
 */
export const recallArgs = {
  char: {
    type: "string",
    description:
      "the name for {{char}}, <char> and <bot> in cards (default: settings.yaml, else left as written)",
    valueHint: "NAME",
  } as const,
  user: {
    type: "string",
    description: "the name for {{user}} and <user> in cards (default: settings.yaml, else left as written)",
    valueHint: "NAME",
  } as const,
  "budget-tokens": {
    type: "string",
    description: "the automatic half's budget in tokens (o200k_base) (default: settings.yaml, else none)",
    valueHint: "N",
  } as const,
  // Not `as const`: citty types an enum's value from a mutable `options` array.
  reach: {
    type: "enum" as const,
    options: [...REACHES] as Reach[],
    description: `one-hop: fired cards' own text is scanned once for more cards; named: only what was named (default: settings.yaml, else ${DEFAULTS.reach})`,
  },
  lore: {
    type: "enum" as const,
    options: [...LORE_SWITCHES] as LoreSwitch[],
    description: `auto: what was named and what was noticed; declared: always-on cards and cards asked for only; none: nothing at all (default: settings.yaml, else ${DEFAULTS.lore})`,
  },
  book: {
    type: "string",
    description:
      "the books to read, e.g. eldoria,seraphina (main: the vault's own cards; default: $LORECARDS_BOOKS, else the vault's own, its unbound books and those of --char's character)",
    valueHint: "NAMES",
  } as const,
};

/** The recall options a surface takes from its flags (and the gateway per request). */
export type RecallFlags = Pick<RecallOptions, "names" | "budgetTokens" | "reach" | "lore" | "books">;

/** The recall options `recallArgs` give; a flag left out stays unset. */
export function recallFlags(args: {
  char?: string;
  user?: string;
  "budget-tokens"?: string;
  reach?: string;
  lore?: string;
  book?: string;
}): RecallFlags {
  const options: RecallFlags = {};
  if (args.char !== undefined || args.user !== undefined)
    options.names = { char: args.char, user: args.user };
  // The hook takes its books from the environment too: Claude Code sets it per project (docs/BOOKS.md).
  const named = bookNamesIn(args.book ?? process.env.LORECARDS_BOOKS);
  if (named.length > 0 || args.char !== undefined)
    options.books = {
      ...(named.length > 0 && { named }),
      ...(args.char !== undefined && { character: args.char }),
    };
  const tokens = wholeNumber(args["budget-tokens"], "--budget-tokens");
  if (tokens !== undefined) options.budgetTokens = tokens;
  if (args.reach !== undefined) options.reach = args.reach as Reach;
  if (args.lore !== undefined) options.lore = args.lore as LoreSwitch;
  return options;
}

export const seedArg = {
  seed: {
    type: "string",
    description: "seed of the chance draws (probability, groups); with --turns, user message n uses SEED:n",
    valueHint: "SEED",
  },
} as const;

/** `--turns`: the messages before the current one (`try`, `explain`). */
export const turnsArg = {
  turns: {
    type: "string",
    description:
      'earlier messages, oldest first: [{"role":"user","text":"…"}], replayed one user message at a time',
  },
} as const;

/** `--turns` is JSON; what it holds is checked by recall's parseTurns, as `/api/try`'s turns are. */
export function turnsJson(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new LoreError("usage", `--turns is not valid JSON: ${describeError(err)}`);
  }
}

/** `--with`: cards asked for by name (`try`, `explain`): manual cards come in only this way. */
export const withArg = {
  with: {
    type: "string",
    description: "cards asked for by name, comma-separated: manual cards come in only this way",
    valueHint: "NAMES",
  },
} as const;

/** `--earlier`: cards as they were at a history version or time, beside them as they are (`explain`). */
export const earlierArg = {
  earlier: {
    type: "string",
    description: "cards as they were, beside them as they are: Name@VERSION or Name@DATE, comma-separated",
    valueHint: "CARDS",
  },
} as const;

/** `--tier`: which block cards ask to start in (`try`, `explain`), over their own `tier:` fields. */
export const tierArg = {
  tier: {
    type: "string",
    description:
      "which block cards start in, Name=stable or Name=volatile, comma-separated (over the cards' tier:)",
    valueHint: "HINTS",
  },
} as const;

/** The hints `--tier` gives, each finding a card; a part that is no hint is a usage error, an unknown name `not_found`. */
export async function tierHints(
  engine: Engine,
  value: string | undefined,
): Promise<{ name: string; tier: TierHint }[]> {
  const { hints, bad } = tierHintsIn(value);
  if (bad.length > 0)
    throw new LoreError(
      "usage",
      `--tier takes Name=stable or Name=volatile, comma-separated; not "${bad[0]}"`,
    );
  const unknown = await engine.unknownNames(hints.map((h) => h.name));
  if (unknown.length > 0)
    throw new LoreError("not_found", `--tier: no card named ${unknown.map((n) => `"${n}"`).join(", ")}`);
  return hints;
}

/** The names `--with` gives, each finding a card, or `not_found` naming those that do not. */
export async function askedNames(
  engine: Engine,
  value: string | undefined,
  books?: BookAsk,
): Promise<string[]> {
  const ask = namesIn(value);
  const unknown = await engine.unknownNames(ask, books);
  if (unknown.length > 0)
    throw new LoreError("not_found", `--with: no card named ${unknown.map((n) => `"${n}"`).join(", ")}`);
  return ask;
}

/** The books `flags` name, each a book of the vault's: else a usage error naming the books there are. */
export function checkedBooks(engine: Engine, flags: RecallFlags): void {
  const { unknown } = engine.chooseBooks(flags.books);
  if (unknown.length === 0) return;
  const there = engine
    .books()
    .map((b) => b.name)
    .join(", ");
  throw new LoreError(
    "not_found",
    `--book: no book ${unknown.map((n) => `"${n}"`).join(", ")} in this vault (its books: ${there})`,
  );
}
