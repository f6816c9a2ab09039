import { expect, test } from "bun:test";
import { compilePattern, keySource } from "../../src/match/pattern.ts";
import { type RegexKey, RegexScan } from "../../src/match/regex-scan.ts";

const WORDS = [
  "monday",
  "deploy",
  "bob",
  "brennan",
  "the",
  "it",
  "market",
  "x",
  "line",
  "a",
  "kelvin",
  "second",
];
// Forms that put a literal in every place the literal reading must get right (quantified, escaped,
// in a group, a class, an alternation, under inline flags) and forms with no literal at all.
const FORMS = [
  (w: string, v: string) => `${w}\\s+${v}`,
  (w: string) => `\\b${w}\\b`,
  (w: string) => `^${w}`,
  (w: string, v: string) => `${w}.*${v}$`,
  (w: string, v: string) => `(${w}|${v})\\s+\\d+`,
  (w: string) => `[A-Z]${w.slice(1)}`,
  (w: string) => `${w}s?`,
  (w: string) => `${w}e?d`,
  (w: string) => `${w}{2}`,
  (w: string, v: string) => `${w}|${v}`,
  (w: string) => `(?i)${w}`,
  (w: string, v: string) => `[]${w}]${v}`,
  (w: string) => `\\x{41}${w}`,
  (w: string, v: string) => `${w}\\.${v}`,
  (w: string) => `\\Q${w}.\\E`,
  (w: string, v: string) => `(?:${w})?${v}`,
  (w: string) => `${w}*?`,
];
const FLAGS = ["", "i", "m", "si"];
const MESSAGES = [
  "Remember the Monday deploy 517? Apparently it is closing next month.",
  "Yes! And I want to ask Bob Brennan 33 to come along.\nnext line x",
  "market\nTHE END, the the, deploy.market, monday.",
  "\u212AELVIN and \u017Fecond (Kelvin sign, long s), Amonday, mondaymonday, deployd, ]kelvinsecond",
  "\u017Fecond alone (long s)",
  "\u212AELVIN alone (Kelvin sign)",
  "",
];

test("many patterns run together answer exactly as each run alone", () => {
  const keys: RegexKey[] = Array.from({ length: WORDS.length * FORMS.length * FLAGS.length }, (_, i) => {
    const w = WORDS[i % WORDS.length]!;
    const v = WORDS[(i * 7 + 3) % WORDS.length]!;
    const form = FORMS[Math.floor(i / WORDS.length) % FORMS.length]!;
    const written = `/${form(w, v)}/${FLAGS[Math.floor(i / (WORDS.length * FORMS.length))]}`;
    return { card: i, key: 0, written, pattern: keySource(written, { regex: false, caseSensitive: false })! };
  });
  const regexOf = (k: RegexKey) => {
    const compiled = compilePattern(k.pattern);
    return "regex" in compiled ? compiled.regex : undefined;
  };
  const scan = new RegexScan(keys);
  let matched = 0;
  for (const text of MESSAGES) {
    const together = scan.matching(text).map((k) => k.written);
    const alone = keys.filter((k) => regexOf(k)?.test(text)).map((k) => k.written);
    expect(together).toEqual(alone);
    matched += alone.length;
  }
  // The comparison means something only if many patterns do match.
  expect(matched).toBeGreaterThan(100);
});

test("an invalid pattern among valid ones is dropped; the others still match", () => {
  const rules = { regex: true, caseSensitive: false };
  const keys: RegexKey[] = ["dra+gon", "[broken", "kni(ght"].map((written, card) => ({
    card,
    key: 0,
    written,
    pattern: keySource(written, rules)!,
  }));
  expect(new RegexScan(keys).matching("a DRAAGON").map((k) => k.card)).toEqual([0]);
  expect(new RegexScan(keys).matching("[broken kni(ght")).toEqual([]);
});
