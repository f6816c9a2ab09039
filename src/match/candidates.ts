/**
 * Candidate keywords: words in a sentence that look like they deserve a card but that no card
 * covers. Latin script: capitalised words and runs of them (at the start of a sentence only when
 * the word is not one that commonly opens a sentence),
 * sorted into places (after "in/at/to/from/near…" or ending in a place word) and names. A word that
 * is the start of an existing card's title ("Ali" when "Alice" exists) is offered as an alias.
 * Chinese: names and places read off the shape of the runtime's word segmentation (_han-candidates.ts),
 * not jieba, whose load would cost a `try` far more than the rest of it.
 */
import { hanCandidates } from "./_han-candidates.ts";
import { fold } from "./fold.ts";

const STOP = new Set(
  (
    "i i'm i've i'd i'll im ok okay yes no hi hey hello thanks thank the a an and but or so then if " +
    "when what who why how where this that these those it it's my your our their his her we you they he she " +
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july " +
    "august september october november december today tomorrow yesterday mr mrs ms dr oh well also just " +
    // Words that often open a sentence: a capital there says nothing about being a name.
    "after before because while since until although though anyway actually honestly apparently finally " +
    "first last next maybe perhaps please sorry still now here there not never always sometimes often " +
    "let let's look tell remember guess think know see say said went got had have has did do does done " +
    "can could would should will shall might must is are was were be been being am any some all every " +
    "each both either neither nothing something everything everyone someone anyone nobody good great nice " +
    "morning evening night afternoon cool wow yeah nope sure right true fine lol haha which whose whom with " +
    "without about above for from into onto over under in on at to by of as like than also even only"
  ).split(" "),
);
const PLACE_BEFORE = new Set(["in", "at", "to", "from", "near", "into", "around", "visit", "visited"]);
const PLACE_WORD =
  /\b(street|st|road|rd|avenue|ave|park|cafe|café|bar|lake|river|mountain|city|town|station|square|bridge|hall|school|university|hospital|market|beach|island|hotel|restaurant)$/i;
const HAN = /\p{Script=Han}/u;
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆]+/gu;
const WORD = /[\p{Lu}\p{Lt}][\p{L}\p{M}'’-]*|[\p{L}\p{M}\p{N}'’-]+|[.!?。！？\n]/gu;

/** Words that may deserve a card, sorted by what they look like. */
export interface Candidates {
  names: string[];
  places: string[];
  aliases: string[];
}

export interface CandidateContext {
  /** True when a folded phrase is already covered by some card's terms. */
  covered: (folded: string) => boolean;
  /** True when some card's folded title is longer than `folded` and starts with it: an alias. */
  extendsTitle: (folded: string) => boolean;
}

/**
 * The most of a message read for candidates, in UTF-16 units: a few paragraphs. They are suggestions
 * for the person to look at.
 */
export const CANDIDATES_READ = 4000;

export async function findCandidates(message: string, ctx: CandidateContext): Promise<Candidates> {
  // Cut at the last space near the cut: half a word would read as a name of its own.
  const sentence =
    message.length > CANDIDATES_READ
      ? message.slice(0, CANDIDATES_READ).replace(/\s\S{0,100}$/, "")
      : message;
  const out: Candidates = { names: [], places: [], aliases: [] };
  const taken = new Set<string>();
  const add = (list: string[], phrase: string) => {
    const f = fold(phrase);
    if (taken.has(f) || ctx.covered(f)) return;
    taken.add(f);
    list.push(phrase);
  };
  // Han and kana stand apart from Latin words written against them ("碰到了Margaret Thornton和").
  for (const run of capitalisedRuns(sentence.replace(UNSPACED_RUN, " "))) {
    const folded = fold(run.phrase);
    const isAlias = !run.phrase.includes(" ") && ctx.extendsTitle(folded);
    if (isAlias) add(out.aliases, run.phrase);
    else if (run.afterPlaceWord || PLACE_WORD.test(run.phrase)) add(out.places, run.phrase);
    else add(out.names, run.phrase);
  }
  if (HAN.test(sentence)) {
    const han = hanCandidates(sentence);
    for (const name of han.names) add(out.names, name);
    for (const place of han.places) add(out.places, place);
  }
  return out;
}

/**
 * "J'ai", "L'homme", "Don't", "We're": an elided article or pronoun before the apostrophe, or a short
 * ending after it. Names keep a capital after the apostrophe ("O'Brien", "D'Arcy").
 */
function isContraction(word: string): boolean {
  return /^\p{L}['’]\p{Ll}/u.test(word) || /['’]\p{Ll}{1,2}$/u.test(word);
}

interface Run {
  phrase: string;
  afterPlaceWord: boolean;
}

/** Runs of capitalised words that do not open a sentence and are not common words. */
function capitalisedRuns(sentence: string): Run[] {
  const runs: Run[] = [];
  const lowerWords = new Set(sentence.match(/\b\p{Ll}[\p{L}'’-]*/gu) ?? []);
  let sentenceStart = true;
  let previous = "";
  let current: string[] = [];
  let currentAfterPlace = false;
  const flush = () => {
    if (current.length > 0) runs.push({ phrase: current.join(" "), afterPlaceWord: currentAfterPlace });
    current = [];
  };
  for (const match of sentence.matchAll(WORD)) {
    const word = match[0];
    if (/^[.!?。！？\n]$/u.test(word)) {
      flush();
      sentenceStart = true;
      continue;
    }
    const capital = /^[\p{Lu}\p{Lt}]/u.test(word);
    const common = STOP.has(word.toLowerCase().replace(/['’]s$/, ""));
    // A capital that opens a sentence counts too, unless the word is one that commonly opens one
    // (the list above) or the same word also appears in lower case in the text.
    const lowerElsewhere = sentenceStart && lowerWords.has(word.toLowerCase());
    if (capital && !common && !lowerElsewhere && !isContraction(word) && word.length >= 2) {
      if (current.length === 0) currentAfterPlace = PLACE_BEFORE.has(previous.toLowerCase());
      current.push(word.replace(/['’]s$/, ""));
    } else {
      flush();
    }
    sentenceStart = false;
    previous = word;
  }
  flush();
  return runs;
}
