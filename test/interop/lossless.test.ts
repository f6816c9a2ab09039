// Every export format, read back by us (ours) and by SillyTavern's rules (theirs), keeps every field
// a card sets. "Theirs" is SillyTavern's reading written down here as the peer's answer: World Info
// entries it uses as they are; a character book it converts with world-info.js `convertCharacterBook`,
// whose reading `stReadsBookEntry` restates (our words, its field choices and fallbacks).
import { describe, expect, test } from "bun:test";
import type { CardDraft } from "../../src/card/types.ts";
import {
  EXPORT_FORMATS,
  type ExportCard,
  type ExportFormat,
  entriesToDrafts,
  parseBook,
  renderBook,
} from "../../src/interop/index.ts";
import { json, throughFile } from "./_support.ts";

type Raw = Record<string, unknown>;

/** Two cards that between them set every field a card may carry into a lorebook. */
const DRAFTS: CardDraft[] = [
  {
    kind: "entry",
    key: "Harbor",
    frontmatter: {
      kind: "entry",
      title: "Harbor",
      keywords: ["harbor", "/ports?/i"],
      secondary: { not_all: ["fog", "night"] },
      priority: 3,
      enabled: true,
      context: "always",
      case_sensitive: true,
      whole_words: false,
      regex: true,
      scan_messages: 6,
      order: 40,
      group: ["places", "coast"],
      group_override: true,
      group_weight: 30,
      group_scoring: true,
      probability: 55,
      exclude_recursion: true,
      prevent_recursion: true,
      delay_until_recursion: true,
      sticky: 2,
      cooldown: 3,
      delay: 4,
      ignore_budget: true,
      position: "at_depth",
      depth: 1,
      role: "assistant",
      decorators: ["@@activate_only_after 2", "@@exclude_keys storm"],
    },
    body: "The old harbor smells of tar.\n",
  },
  {
    kind: "entry",
    key: "Lantern",
    frontmatter: {
      kind: "entry",
      title: "Lantern",
      keywords: ["lantern"],
      secondary: { all: ["green"] },
      enabled: false,
      case_sensitive: false,
      whole_words: true,
      order: 5,
      position: "em_top",
    },
    body: "A green lantern.\n",
  },
];

const CARDS: ExportCard[] = DRAFTS.map(throughFile);

/** The card-setting part of a draft's frontmatter: everything but the carried foreign fields. */
function said(draft: CardDraft): Raw {
  const { st: _st, card: _card, ...rest } = draft.frontmatter;
  return rest;
}

async function roundTrip(format: ExportFormat): Promise<CardDraft[]> {
  const file = await renderBook(CARDS, format);
  const book = await parseBook(file.bytes, { filename: `out.${format}` });
  return entriesToDrafts(book.entries, { kind: "entry", namespace: book.namespace });
}

describe("ours: every export format imports again to the same cards", () => {
  test.each(EXPORT_FORMATS.map((f) => [f]))("%s", async (format) => {
    const back = await roundTrip(format);
    expect(back.map(said)).toEqual(DRAFTS.map(said));
    expect(back.map((d) => d.body)).toEqual(DRAFTS.map((d) => d.body));
  });

  test.each(EXPORT_FORMATS.map((f) => [f]))("%s, exported again, gives the same bytes", async (format) => {
    // One clock for both: a card made without a base is dated at its export, to the second.
    const now = () => Date.UTC(2026, 0, 1);
    const first = await renderBook(CARDS, format, { now });
    const again = (await roundTrip(format)).map(throughFile);
    const second = await renderBook(again, format, { now });
    if (format === "charx") return; // a zip carries its write time
    expect(new TextDecoder().decode(second.bytes)).toBe(new TextDecoder().decode(first.bytes));
  });
});

/**
 * How SillyTavern reads one character book entry into a World Info entry (world-info.js
 * `convertCharacterBook`): its own settings from `extensions` with its defaults, the spec's fields
 * where it looks at them (keys, secondary_keys, comment, content, constant, selective,
 * insertion_order, enabled, and position only when extensions.position is absent).
 */
function stReadsBookEntry(e: Raw): Raw {
  const x = (e.extensions ?? {}) as Raw;
  const or = (v: unknown, d: unknown) => (v === undefined || v === null ? d : v);
  return {
    key: e.keys,
    keysecondary: or(e.secondary_keys, []),
    comment: or(e.comment, ""),
    content: e.content,
    constant: or(e.constant, false),
    selective: or(e.selective, false),
    order: e.insertion_order,
    position: or(x.position, e.position === "before_char" ? 0 : 1),
    disable: !e.enabled,
    excludeRecursion: or(x.exclude_recursion, false),
    preventRecursion: or(x.prevent_recursion, false),
    delayUntilRecursion: or(x.delay_until_recursion, false),
    probability: or(x.probability, 100),
    useProbability: or(x.useProbability, true),
    depth: or(x.depth, 4),
    selectiveLogic: or(x.selectiveLogic, 0),
    group: or(x.group, ""),
    groupOverride: or(x.group_override, false),
    groupWeight: or(x.group_weight, 100),
    scanDepth: or(x.scan_depth, null),
    caseSensitive: or(x.case_sensitive, null),
    matchWholeWords: or(x.match_whole_words, null),
    useGroupScoring: or(x.use_group_scoring, null),
    role: or(x.role, 0),
    sticky: or(x.sticky, null),
    cooldown: or(x.cooldown, null),
    delay: or(x.delay, null),
  };
}

/** What SillyTavern acts on for the first card (Harbor), as World Info fields. */
const HARBOR_IN_ST: Raw = {
  // regex: every key a pattern; SillyTavern runs keys written /…/ as patterns (case_sensitive: no i).
  key: ["/harbor/", "/ports?/i"],
  keysecondary: ["fog", "night"],
  selectiveLogic: 1, // NOT ALL
  selective: true,
  comment: "Harbor",
  content: "@@activate_only_after 2\n@@exclude_keys storm\nThe old harbor smells of tar.",
  constant: true,
  order: 40,
  position: 4,
  depth: 1,
  role: 2,
  disable: false,
  caseSensitive: true,
  matchWholeWords: false,
  useGroupScoring: true,
  scanDepth: 6,
  probability: 55,
  useProbability: true,
  group: "places, coast",
  groupOverride: true,
  groupWeight: 30,
  excludeRecursion: true,
  preventRecursion: true,
  delayUntilRecursion: true,
  sticky: 2,
  cooldown: 3,
  delay: 4,
};

const LANTERN_IN_ST: Raw = {
  key: ["lantern"],
  keysecondary: ["green"],
  selectiveLogic: 3, // AND ALL
  comment: "Lantern",
  content: "A green lantern.",
  constant: false,
  order: 5,
  position: 5, // EM top
  disable: true,
  caseSensitive: false,
  matchWholeWords: true,
  useGroupScoring: null,
  scanDepth: null,
  probability: 100,
  group: "",
  sticky: 0,
};

describe("theirs: SillyTavern reads every field of our exports", () => {
  test("a World Info export says to SillyTavern what the cards say", async () => {
    const out = json((await renderBook(CARDS, "st")).bytes) as { entries: Record<string, Raw> };
    const [harbor, lantern] = Object.values(out.entries);
    expect(harbor).toMatchObject({ ...HARBOR_IN_ST, ignoreBudget: true });
    expect(lantern).toMatchObject(LANTERN_IN_ST);
  });

  test.each([["card-json"], ["lorebook_v3"]] as const)(
    "a %s export, converted by SillyTavern's character book import, says what the cards say",
    async (format) => {
      const out = json((await renderBook(CARDS, format)).bytes) as Raw;
      const book = (format === "card-json" ? (out.data as Raw).character_book : out.data) as {
        entries: Raw[];
      };
      const [harbor, lantern] = book.entries.map(stReadsBookEntry);
      // A card's keys stay as written there: use_regex says they are patterns (SillyTavern ignores it).
      expect(harbor).toMatchObject({ ...HARBOR_IN_ST, key: ["harbor", "/ports?/i"] });
      expect(lantern).toMatchObject({ ...LANTERN_IN_ST, sticky: 0 });
    },
  );

  test("the spec's own fields say the same to a reader that knows only the spec", async () => {
    const out = json((await renderBook(CARDS, "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
    const [harbor, lantern] = out.data.entries;
    expect(harbor).toMatchObject({
      constant: true,
      case_sensitive: true,
      use_regex: true,
      insertion_order: 40,
      priority: 3,
      selective: true,
      secondary_keys: ["fog", "night"],
    });
    expect(lantern).toMatchObject({
      constant: false,
      case_sensitive: false,
      use_regex: false,
      enabled: false,
    });
  });

  test("a card SillyTavern converted to World Info imports as the same cards", async () => {
    const out = json((await renderBook(CARDS, "card-json")).bytes) as {
      data: { character_book: { entries: Raw[] } };
    };
    const world = {
      entries: Object.fromEntries(out.data.character_book.entries.map((e, i) => [i, stReadsBookEntry(e)])),
    };
    const book = await parseBook(world, { filename: "converted.json" });
    const back = entriesToDrafts(book.entries, { kind: "entry", namespace: "st" });
    // What SillyTavern's conversion drops: priority (World Info has none), use_regex (it ignores
    // it) and ignore_budget (its conversion does not read it).
    const { priority: _p, regex: _r, ignore_budget: _b, ...harbor } = said(DRAFTS[0]!);
    expect(back.map(said)).toEqual([harbor, said(DRAFTS[1]!)]);
  });
});
