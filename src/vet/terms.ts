/**
 * The trigger heuristics `check` and the write checks (rules.ts) share, so the two never disagree
 * about a card's words: a card whose words can never match (never_fires), a card with no keywords or
 * aliases (it fires only on its title), and a term so generic it fires on ordinary text (a common
 * word, two Latin letters, or a term that matches inside everyday words). Pure.
 */
import { rulesOf } from "../card/index.ts";
import type { CardMeta, CardRules } from "../card/types.ts";
import { cardPatterns, charCount, fold } from "../match/index.ts";

/** A finding about one card's words, before its caller adds the card's name and path. */
export interface TermProblem {
  severity: "error" | "warning";
  code: "never_fires" | "no_keywords" | "generic_keyword";
  detail: string;
}

/** Words that appear in almost any conversation: as a substring term they would fire constantly. */
const COMMON = new Set(
  (
    "the and you that this with have for not are but was what all they your can just like know " +
    "one there out get about would make time good see how well back now then also some very " +
    "people day love yes yeah okay thanks today work home thing things said say she him her his a i o " +
    "的 了 是 我 你 他 她 们 在 有 和 就 不 人 都 一 这 也 吗 呢 吧 啊 の に は を た が で て と し"
  ).split(" "),
);

/**
 * Frequent longer words, for terms that match inside them (a term matches anywhere in a word unless the
 * card asks for whole words): "ally" fires on "really", "art" on "start", and the short names people
 * give their cards on words of every day ("sam" on "same", "ben" on "bench", "max" on "maximum").
 */
const EVERYDAY = (
  "really usually finally actually especially totally basically literally generally probably " +
  "already always anything something everything nothing another together because before after other " +
  "brother mother father water weather whether where there here their these those them then than " +
  "thank think thing going doing being having making taking coming looking feeling start part heart " +
  "party smart care share hard card word world work words story history person personal reason " +
  "season question answer again against around about above below little still will call small tall " +
  "all fall shall ball hello yellow follow tomorrow sorrow important imagine remember member number " +
  "under understand stand hand land and friend end listen often minute message change chance office " +
  "coffee house mouse use cause every very even ever never over cover discover whatever however " +
  "forever same sample example simple cannot annual announce channel planning banana benefit bench " +
  "dance danger guidance abundant maximum random seldom wisdom freedom kingdom customer tomato atom " +
  "bottom stomach welcome become income outcome someone anyone everyone money honey lonely only " +
  "lesson weapon common moment comment government environment development management statement " +
  "student present parent different evening event seven level eleven system mystery victory factory " +
  "memory company accompany marketing market basket ticket jacket pocket rocket garden pardon " +
  "harbour pleasure measure treasure picture future nature culture feature creature mature natural " +
  "actual manual visual usual casual adult result consult plant giant servant restaurant elephant " +
  "pleasant meant mean means meaning clean ocean dream stream cream scream scheme theme theory " +
  "therapy thermal bother either neither leather feather rather gather"
).split(" ");

const LATIN = /^[\p{Script=Latin}]+$/u;

/**
 * Why a folded term would fire on ordinary text, or null when it would not: a common word, two Latin
 * letters, or (unless the card matches whole words) a Latin term found inside an everyday word.
 */
export function genericTerm(term: string, rules: CardRules): string | null {
  if (COMMON.has(term)) return `"${term}" is a common word and fires on ordinary text`;
  if (charCount(term) === 2 && LATIN.test(term)) {
    return `"${term}" is two letters and matches inside many words ("${term}" in longer words)`;
  }
  if (rules.wholeWords !== true && LATIN.test(term)) {
    const inside = EVERYDAY.find((word) => word !== term && word.includes(term));
    if (inside)
      return `"${term}" matches inside everyday words such as "${inside}" (whole_words: true stops that)`;
  }
  return null;
}

/**
 * Why a card that waits for its words (policy `automatic`) never fires, or fires only on its title.
 * `terms` are its folded plain terms (match/ `cardTerms`).
 */
export function wordProblems(card: CardMeta, terms: readonly string[]): TermProblem[] {
  const found: TermProblem[] = [];
  const add = (severity: TermProblem["severity"], code: TermProblem["code"], detail: string) =>
    found.push({ severity, code, detail });
  if (terms.every((t) => !/[\p{L}\p{N}]/u.test(t)) && cardPatterns(card).length === 0) {
    add("error", "never_fires", "it has no term with a letter or digit in it, so nothing can match it");
  }
  const { all, not, notAll } = card.secondary;
  const forbidden = new Set(not.map(fold));
  const vetoed = all.filter((w) => forbidden.has(fold(w)));
  if (vetoed.length > 0) {
    add("error", "never_fires", `"${vetoed[0]}" is required by secondary.all and forbidden by secondary.not`);
  }
  const required = new Set(all.map(fold));
  if (notAll.length > 0 && notAll.every((w) => required.has(fold(w)))) {
    const detail =
      "every word of secondary.not_all is also required by secondary.all, so every hit is vetoed";
    add("error", "never_fires", detail);
  }
  if (card.keywords.length === 0 && card.aliases.length === 0) {
    add("warning", "no_keywords", "no keywords or aliases: it fires only when its title is written out");
  }
  return found;
}

/** True when the card fires on its words (README "Which cards fire"): only then do its words matter. */
export function firesOnWords(card: Pick<CardMeta, "rules">): boolean {
  return rulesOf(card).policy === "automatic";
}
