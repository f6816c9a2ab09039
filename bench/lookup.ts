/**
 * Lookup benchmark: the matcher on 1k, 10k and 100k generated cards, a 3-turn window (7 messages),
 * p50/p99 per lookup — and, in the same run, a naive per-card, per-term scan (what a loop over cards
 * and keys costs) as the baseline. Targets: p50 ≤ 1 ms at 10k cards, ≤ 5 ms at 100k.
 *
 * A second table runs the same cards with lorebook rules (_lorebook.ts): groups, case and whole-word
 * rules, NOT ALL words, always-on cards, and regular-expression keys on a fixed 100 cards and on 1% of
 * the cards. Regex keys are the one cost per card a lookup has (behind their required literals or
 * in re2js sets, regex-scan.ts), so the table also gives their cost per regex card and lookup, and
 * the first lookup, which compiles them.
 *
 *   bun bench/lookup.ts [--sizes 1000,10000,100000] [--rounds 300]
 */
import { charCount, fold, isWordCharAt } from "../src/match/fold.ts";
import { type MatchCard, Matcher } from "../src/match/matcher.ts";
import { cardTerms } from "../src/match/table.ts";
import { generateCards, sampleWindow } from "./_gen.ts";
import { withLorebookRules } from "./_lorebook.ts";
import { ms, percentile, table } from "./_stats.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

const sizes = arg("--sizes", "1000,10000,100000").split(",").map(Number);
const rounds = Number(arg("--rounds", "300"));

/** The baseline: for every card, for every term, search every message of the window. */
function naive(cards: MatchCard[], terms: string[][], messages: string[]): number[] {
  const folded = messages.map(fold);
  const hits: number[] = [];
  cards.forEach((_, i) => {
    for (const term of terms[i]!) {
      for (const text of folded) {
        const at = text.indexOf(term);
        if (at === -1) continue;
        if (charCount(term) === 1 && (isWordCharAt(text, at - 1) || isWordCharAt(text, at + term.length)))
          continue;
        hits.push(i);
        return;
      }
    }
  });
  return hits;
}

/** Per-lookup times of `matcher.match` over the windows in turn, after a warm-up round. */
async function lookups(matcher: Matcher, windows: string[][]): Promise<number[]> {
  for (let i = 0; i < 20; i++) await matcher.match(windows[i % 20]!, { scanDepth: 3 });
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const s = performance.now();
    await matcher.match(windows[i % 20]!, { scanDepth: 3 });
    out.push(performance.now() - s);
  }
  return out;
}

const rows: (string | number)[][] = [
  ["cards", "terms", "build", "p50", "p99", "naive p50", "naive p99", "speed-up (p50)"],
];
const lorebookRows: (string | number)[][] = [
  [
    "cards",
    "plain p50",
    "regex cards",
    "p50",
    "p99",
    "regex cards (1%)",
    "p50",
    "p99",
    "first lookup",
    "per regex card (100, p50)",
  ],
];
for (const size of sizes) {
  const cards: MatchCard[] = generateCards(size, 0).map((c) => ({
    key: c.key,
    kind: c.kind,
    title: c.title,
    keywords: c.keywords,
    aliases: c.aliases,
    secondary: { all: [], any: [], not: [], notAll: [] },
    scanDepth: null,
    priority: 0,
    inject: true,
  }));
  const t0 = performance.now();
  const matcher = new Matcher(cards);
  const build = performance.now() - t0;
  const terms = cards.map(cardTerms);
  const gen = generateCards(size, 0);
  const windows = Array.from({ length: 20 }, (_, i) => sampleWindow(gen, i));
  const fast = await lookups(matcher, windows);
  const slow: number[] = [];
  const naiveRounds = Math.max(5, Math.min(rounds, Math.floor(2_000_000 / size)));
  for (let i = 0; i < naiveRounds; i++) {
    const s = performance.now();
    naive(cards, terms, windows[i % 20]!);
    slow.push(performance.now() - s);
  }
  const speed = percentile(slow, 50) / percentile(fast, 50);
  const plain = percentile(fast, 50);
  const fixed = withLorebookRules(cards, Math.max(1, Math.floor(size / 100)));
  const share = withLorebookRules(cards, 100);
  const fixedMatcher = new Matcher(fixed);
  const shareMatcher = new Matcher(share);
  const fixedTimes = await lookups(fixedMatcher, windows);
  // The first lookup compiles the regex keys into their sets; timed apart, it is a one-time cost.
  const f0 = performance.now();
  await shareMatcher.match(windows[0]!, { scanDepth: 3 });
  const firstLookup = performance.now() - f0;
  const shareTimes = await lookups(shareMatcher, windows);
  const regexCount = shareMatcher.table.regexCards.length;
  // Per regex card, from the fixed 100: at 1k cards the 1% share is 10 cards, within the noise.
  const perRegex = (percentile(fixedTimes, 50) - plain) / fixedMatcher.table.regexCards.length;
  lorebookRows.push([
    size,
    ms(plain),
    `${fixedMatcher.table.regexCards.length}`,
    ms(percentile(fixedTimes, 50)),
    ms(percentile(fixedTimes, 99)),
    `${regexCount}`,
    ms(percentile(shareTimes, 50)),
    ms(percentile(shareTimes, 99)),
    ms(firstLookup),
    `${(perRegex * 1000).toFixed(2)} µs`,
  ]);
  rows.push([
    size,
    matcher.termCount,
    ms(build),
    ms(percentile(fast, 50)),
    ms(percentile(fast, 99)),
    ms(percentile(slow, 50)),
    ms(percentile(slow, 99)),
    `${speed.toFixed(0)}×`,
  ]);
}
console.log(`lookup: 3-turn window (7 messages), ${rounds} lookups per size, Bun ${Bun.version}`);
console.log(table(rows));
console.log(
  "\nwith lorebook rules (groups, case, whole words, NOT ALL, always), regex keys on 100 cards / on 1%:",
);
console.log(table(lorebookRows));
