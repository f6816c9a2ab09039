/**
 * One-hop reach (README "Recursion as one-hop reach", the writing app's "one step out through prose"):
 * the text of the cards that fired from the person's words is scanned once, with the same matcher, for
 * more cards. What that finds comes in as `reached` and is never scanned again, so a heavily
 * cross-referenced vault cannot cascade. SillyTavern's recursion does cascade (a new pass per level
 * until nothing new fires or a step limit); one hop is our deliberate difference. `reach: "named"`
 * turns the step off: what it would have found is only shown (`reachShown`).
 *
 * SillyTavern's recursion flags, read for one hop:
 *   prevent_recursion      the card's own text reaches nothing;
 *   exclude_recursion      the card is never reached (it fires only on the person's words);
 *   delay_until_recursion  the card fires only in the reach pass. As in SillyTavern, whose recursive
 *                          pass reads the chat again beside the fired entries' text, a card named by
 *                          the person is held (vetoed `recursion_only`) and released when the pass
 *                          runs — when some fired card's text is scanned; reached, it comes in as
 *                          any reached card. A still-sticky card is never held.
 * The sources: cards that fired on their words (named), always-on and still-sticky cards; a card asked
 * for by id reaches only when it was named too (a pick brings the card, not its neighbours).
 * Reached cards then pass the same stages as named ones (policy, their words, the clock, groups,
 * probability); their secondary words are looked for in the text that reached them.
 *
 * Prose is not the person's words (seed 004 notices *names* in prose): it is scanned with whole
 * words (match/ `MatchOptions.prose`), so a short alias does not turn every card's text into noise
 * ("Al" is not found in "Bob is on call"). The text scanned is what the card sends with its macros read
 * (card/macros.ts): `{{comment:…}}` and `{{// …}}` are not scanned, `{{hidden_key:…}}` is.
 */
import { readMacros } from "../../card/macros.ts";
import { rulesOf } from "../../card/rules.ts";
import type { CardMeta } from "../../card/types.ts";
import type { MatchOptions } from "../../match/index.ts";
import type { Compiled } from "../_compiled.ts";
import { type Fired, type Selected, type Selection, vetoed } from "../selection.ts";
import { gate } from "./gate.ts";
import { notice } from "./notice.ts";
import { judged } from "./policy.ts";

/** The prose of a card that reach scans: its public text with its macros read, its hidden keys added. */
export function proseOf(compiled: Compiled, card: CardMeta): string {
  const text = compiled.publicText(card);
  if (!text.includes("{{")) return text;
  const read = readMacros(text);
  return [read.text, ...read.hidden].join("\n");
}

/** Stage: cards that fire only in the reach pass are held until it runs. */
export function hold(selection: Selection, sticky: ReadonlySet<string>): Selected[] {
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || entry.via === "explicit" || sticky.has(entry.id)) return entry;
    if (!rulesOf(entry.card).delayUntilRecursion) return entry;
    return vetoed(entry, { reason: "recursion_only" });
  });
}

/** A fired card whose text is scanned for more cards. */
function isSource(entry: Selected): boolean {
  if (entry.verdict !== "fired" || rulesOf(entry.card).preventRecursion) return false;
  return entry.via === "explicit" ? entry.hits.length > 0 : entry.via !== "reached";
}

export interface Reached {
  selection: Selected[];
  /** Ids that came in (or were released) in this pass: the later stages judge only these. */
  batch: Set<string>;
}

/**
 * Stage, with reach `named`: the pass is made only to show what it would have added (the writing
 * app's "the door still lists what the prose step noticed"). Each card it would have brought in is
 * appended vetoed `reach_named`; nothing held is released and nothing of the selection changes.
 */
export async function reachShown(
  compiled: Compiled,
  selection: Selection,
  options: { match: MatchOptions; explicit: ReadonlySet<string> },
): Promise<Reached> {
  const before = new Set(selection.map((e) => e.id));
  const reached = await reach(compiled, selection, options);
  const shown = reached.selection.filter((e) => !before.has(e.id) && e.verdict === "fired");
  return {
    selection: [...selection, ...shown.map((e) => vetoed(e, { reason: "reach_named" }))],
    batch: new Set(shown.map((e) => e.id)),
  };
}

/** Prose scans kept per vault version before they are let go all at once. */
const MAX_PROSE_SCANS = 2000;

/** What each card's prose names, per vault version (a version let go takes its scans with it). */
const proseScans = new WeakMap<Compiled["loaded"], Map<string, ProseScan>>();

interface ProseScan {
  segmenter: MatchOptions["segmenter"];
  noticed: ReturnType<typeof notice>;
}

/**
 * The cards named in a card's prose. A card fires on many turns and its prose names the same cards
 * each time until the vault changes, so the scan is kept per vault version (and segmenter): what
 * follows copies its entries, never changes them.
 */
function proseNotice(compiled: Compiled, text: string, match: MatchOptions): ReturnType<typeof notice> {
  let scans = proseScans.get(compiled.loaded);
  if (scans === undefined) {
    scans = new Map();
    proseScans.set(compiled.loaded, scans);
  }
  const kept = scans.get(text);
  if (kept !== undefined && kept.segmenter === match.segmenter) return kept.noticed;
  const noticed = notice(compiled, [text], { ...match, scanDepth: 0, prose: true });
  if (scans.size >= MAX_PROSE_SCANS) scans.clear();
  const scan = { segmenter: match.segmenter, noticed };
  scans.set(text, scan);
  noticed.catch(() => {
    if (scans.get(text) === scan) scans.delete(text);
  });
  return noticed;
}

/** Stage: the reach pass. Reached entries are appended after every card already in the selection. */
export async function reach(
  compiled: Compiled,
  selection: Selection,
  options: { match: MatchOptions; explicit: ReadonlySet<string> },
): Promise<Reached> {
  const sources = selection.filter(isSource);
  const batch = new Set<string>();
  if (sources.length === 0) return { selection: [...selection], batch };
  const out = selection.map((entry): Selected => {
    if (entry.reason !== "recursion_only" || rulesOf(entry.card).excludeRecursion) return entry;
    batch.add(entry.id);
    const { reason: _held, ...released } = entry;
    return { ...released, verdict: "fired" } satisfies Fired;
  });
  const seen = new Set(out.map((e) => e.id));
  for (const source of sources) {
    const text = proseOf(compiled, source.card);
    const scan = await proseNotice(compiled, text, options.match);
    const found = scan.selection.filter((e) => !seen.has(e.id) && !rulesOf(e.card).excludeRecursion);
    const judgedNow = found.map((e) => judged({ ...e, via: "reached", trigger: text }, options.explicit));
    for (const entry of await gate(judgedNow, scan.scan)) {
      seen.add(entry.id);
      batch.add(entry.id);
      out.push({ ...entry, found: new Set() });
    }
  }
  return { selection: out, batch };
}
