/**
 * What an agent may record as a collaboration preference: a concrete way of working together
 * ("conclusions before details", "先给结论再展开"), never what the person is. Refused, each with a
 * sentence saying why and what to write instead: personality labels and types, diagnoses and health,
 * private facts (where they live, age, family, money, beliefs, work place), sentences about what the
 * person is or has, anything holding a credential or contact detail, and text too short or too long
 * to be a preference. The word lists are found in one pass like the dictionary's.
 */

import { textProblem } from "../card/index.ts";
import { holdsSecret } from "../sanitize.ts";
import { styleFold } from "./fold.ts";
import { TermScanner } from "./scanner.ts";

export const PREFERENCE_MAX = 80;

type Rule = "label" | "diagnosis" | "private";

const WORDS: Record<Rule, string> = {
  label:
    "introvert|introverted|extrovert|extroverted|extravert|ambivert|anxious|insecure|narcissist|narcissistic|" +
    "lazy|stupid|dumb|genius|emotional|neurotic|perfectionist|impatient|arrogant|shy|needy|clingy|toxic|" +
    "moody|personality|mbti|enneagram|type a|type b|intj|intp|entj|entp|infj|infp|enfj|enfp|istj|isfj|" +
    "estj|esfj|istp|isfp|estp|esfp|内向|外向|i人|e人|焦虑|敏感|自卑|懒|情绪化|玻璃心|急躁|固执|性格|人格|" +
    "完美主义|没耐心|傲慢|害羞|粘人|社恐",
  diagnosis:
    "adhd|autism|autistic|asperger|aspergers|asperger's|depression|depressed|bipolar|ptsd|ocd|" +
    "anxiety disorder|schizophrenia|schizophrenic|dyslexia|dyslexic|disorder|diagnosed|diagnosis|" +
    "therapy|therapist|medication|meds|trauma|traumatized|illness|disease|disability|disabled|" +
    "抑郁|焦虑症|多动症|自闭|阿斯伯格|躁郁|双相|强迫症|精神病|创伤|诊断|心理医生|心理治疗|吃药|疾病|残疾",
  private:
    "lives in|living in|moved to|years old|born in|birthday|married|divorced|wife|husband|girlfriend|" +
    "boyfriend|kids|children|son|daughter|pregnant|salary|income|debt|bank account|religion|religious|" +
    "christian|muslim|jewish|buddhist|hindu|atheist|gay|lesbian|bisexual|transgender|sexuality|" +
    "political|politics|democrat|republican|works at|working at|employer|home address|住在|老家|岁|生日|" +
    "结婚|离婚|老婆|老公|男朋友|女朋友|孩子|儿子|女儿|怀孕|工资|收入|存款|负债|宗教|信仰|基督|穆斯林|" +
    "佛教|同性恋|政治|党员|住址",
};

const WHY: Record<Rule, (term: string) => string> = {
  label: (t) =>
    `"${t}" is a personality label; record how to work together instead (e.g. "conclusions before details")`,
  diagnosis: (t) => `"${t}" reads as health or diagnosis; style memory keeps no health information`,
  private: (t) => `"${t}" is a private fact about the person; keep only how they like to collaborate`,
};

/** A sentence about what the person is or has, not how they like to work. */
const IDENTITY = [
  /^(?:the\s+)?(?:user|person|human|he|she|they)(?:'s|\s+(?:is|are|was|were|has|have|seems|feels|looks))\b/i,
  /^(?:用户|他|她|对方|这个人)(?:是|有|患|得了|很|比较|挺|似乎|看起来)/,
];

let scanner: TermScanner<Rule> | undefined;

function rules(): TermScanner<Rule> {
  if (scanner === undefined) {
    scanner = new TermScanner(
      (Object.keys(WORDS) as Rule[]).flatMap((rule) =>
        WORDS[rule].split("|").map((term) => ({ term, value: rule })),
      ),
    );
  }
  return scanner;
}

export type PreferenceCheck = { ok: true; text: string } | { ok: false; reason: string };

/** The preference as it will be kept (whitespace collapsed, no trailing full stop), or why not. */
export function checkPreference(raw: unknown): PreferenceCheck {
  if (typeof raw !== "string") return { ok: false, reason: "a preference is text" };
  // Bounded before anything reads it, and no control, bidi control or half surrogate pair in it.
  if (raw.length > PREFERENCE_MAX * 4)
    return {
      ok: false,
      reason: `keep a preference under ${PREFERENCE_MAX} characters: a way of working, not a quote`,
    };
  const odd = textProblem("the preference", raw, true);
  if (odd !== null) return { ok: false, reason: odd };
  const text = raw
    .normalize("NFKC")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.。]$/, "");
  if (text === "") return { ok: false, reason: "the preference is empty" };
  if (text.length > PREFERENCE_MAX)
    return {
      ok: false,
      reason: `keep a preference under ${PREFERENCE_MAX} characters: a way of working, not a quote`,
    };
  const words = text.split(" ").length;
  if (words < 2 && [...text].length < 4)
    return { ok: false, reason: `"${text}" is too short to say how to work together` };
  if (holdsSecret(text))
    return {
      ok: false,
      reason: "the preference holds something like a credential, link, e-mail or phone number",
    };
  const folded = styleFold(text);
  const hit = rules().scan(folded)[0];
  if (hit) return { ok: false, reason: WHY[hit.value](folded.slice(hit.start, hit.end)) };
  if (IDENTITY.some((re) => re.test(text)))
    return {
      ok: false,
      reason:
        'this says what the person is, not how to work with them; write what to do ("prefers …", "wants …")',
    };
  return { ok: true, text };
}

/** What makes two wordings of a preference the same: folded, without "the user prefers" and punctuation. */
export function preferenceKey(text: string): string {
  return styleFold(text)
    .replace(/^(?:the\s+)?(?:user|person)\s+/, "")
    .replace(/^(?:prefers|likes|wants|用户)\s*/, "")
    .replace(/[\p{P}\s]+/gu, " ")
    .trim();
}
