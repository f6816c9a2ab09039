/**
 * The most of a person's text anything in the vault keeps: one excerpt per message, its start, at
 * most 60 characters. The hit log keeps it as the message that fired a card, style memory as the
 * example of a habit the excerpt shows; both take it from the same words with `excerpt`, so two
 * stores never hold two different windows of one message (two windows could be joined back into the
 * sentence). Before it is cut, the text is normalised (NFKC, so full-width digits are digits), its
 * whitespace collapsed, and anything that looks like a secret or a way to reach someone is dropped
 * and marked "…": links, e-mail addresses, credentials named as such ("password: …", "pw …",
 * "密码是…"), tokens of known shapes (sk-…, ghp_…, AKIA…, JWTs, PEM blocks), words that mix
 * letters, digits and symbols the way passwords and keys do, IP addresses, and any run of seven or
 * more digits (phone numbers, cards, ID numbers). It errs on dropping: a lost word costs nothing, a
 * kept key costs a lot.
 *
 * People paste hashes, base64, minified code and logs, so every step here is linear in its input and
 * the input is bounded before any of it runs (`SCRUB_MAX`): no pattern may restart a scan of a long
 * run from each of its characters (a leading `[\w-]*` does, in a backtracking engine), so each
 * pattern starts at a literal, at the start of its run (a lookbehind), or within a bounded prefix.
 */

/** The cap, in UTF-16 units (so also in characters). */
export const EXAMPLE_MAX = 60;
/**
 * The most of a text `scrub` reads, in UTF-16 units; `excerpt` reads less (`EXCERPT_READ`). A longer
 * text is cut at a word edge first, so a 30 MB paste costs what its first page does.
 */
export const SCRUB_MAX = 4000;
/** How much of a message `excerpt` scrubs: enough that 60 characters are left after the drops. */
const EXCERPT_READ = 1000;
const GAP = "…";

/** The shapes that are dropped where they match; each is linear in the text it scans. */
const PEM = /-----BEGIN[^-]*-----[\s\S]*?(?:-----END[^-]*-----|$)/g;
/** A scheme (at most 32 characters before "://") and the rest of the run; or www. and its run. */
export const LINK = /[a-z][a-z0-9+.-]{0,31}:\/\/\S*|(?<![\w.])www\.\S+/gi;
/** A local part of at most 64 characters (RFC 5321 §4.5.3.1.1), an @, a dotted domain. */
export const EMAIL = /[^\s@<>()[\]"'`,;]{0,64}@[^\s@<>()[\]"'`,;.]{1,253}(?:\.[^\s@<>()[\]"'`,;.]{1,63})+/g;
/**
 * A credential named as such, and the value after it (up to the next space; all of it in CJK text).
 * The word run the name sits in goes too (`WIDEN`), so a name found inside a key takes the key with it.
 */
const NAMED =
  /(?:password|passwd|passcode|passphrase|pwd|secret|token|api[-_ ]?key|apikey|access[-_ ]?key|private[-_ ]?key|client[-_ ]?secret|bearer|authorization|credentials?|cookie|session[-_ ]?id|otp|\bpw\b)\s*(?:is|was|[:=：])?\s*\S+|(?:密码|口令|密钥|秘钥|私钥|令牌|验证码|账号|帐号)\s*(?:是|为|[:=：])?\s*\S+/gi;
const KNOWN =
  /(?:sk|pk|rk)-[\w-]{6,}|gh[pousr]_\w{6,}|github_pat_\w+|xox[abprs]-[\w-]+|A[KS]IA[0-9A-Z]{8,}|AIza[\w-]{10,}|(?<![\w-])eyJ[\w-]*\.[\w-]*(?:\.[\w-]*)?|glpat-[\w-]+|hf_\w{6,}|npm_\w{6,}/g;
/** Runs of key characters; dropped when they read as a key (see `keyLike`). */
const RUN = /[A-Za-z0-9_+/=-]{16,}/g;
/** Words of printable ASCII; dropped when they read as a password (see `passwordLike`). */
const WORD = /[!-~]{8,}/g;
const IP = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
/** Digits with the separators phone numbers are written with; dropped from seven digits on. */
const DIGITS = /\+?\d[\d\s().-]*\d/g;
const WIDEN = /[\w-]/;

function keyLike(run: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((r) => r.test(run)).length;
  return classes >= 2 || (run.length >= 24 && /[\d_+/=-]/.test(run));
}

/**
 * A password is a word no one writes in a sentence: three of lower case, capitals, digits and
 * symbols ("hunter2PRIVpass", "Tr0ub4dor&3"), or digits with letters on both sides ("hunter2pass").
 * Sentence punctuation around the word does not count.
 */
function passwordLike(word: string): boolean {
  const w = word.replace(/^["'(<[]+|["')>\].,!?;:]+$/g, "");
  if (w.length < 8) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z\d'.,-]/].filter((r) => r.test(w)).length;
  return classes >= 3 || /[A-Za-z]\d+[A-Za-z]/.test(w);
}

const DETECTORS: { re: RegExp; drop?: (match: string) => boolean; widen?: boolean }[] = [
  { re: LINK },
  { re: EMAIL },
  { re: NAMED, widen: true },
  { re: KNOWN },
  { re: RUN, drop: keyLike },
  { re: WORD, drop: passwordLike },
  { re: IP },
  { re: DIGITS, drop: (run) => run.replace(/\D/g, "").length >= 7 },
];

/**
 * `text` with every secret-looking part replaced by "…", whitespace collapsed. Reads at most
 * `SCRUB_MAX` units of it (cut at a word edge).
 */
export function scrub(text: string): string {
  const flat = normalized(bounded(text, SCRUB_MAX)).replace(PEM, GAP).replace(/\s+/g, " ");
  const spans: [number, number][] = [];
  for (const { re, drop, widen } of DETECTORS) {
    let floor = 0;
    re.lastIndex = 0;
    for (let m = re.exec(flat); m !== null; m = re.exec(flat)) {
      const found = m[0];
      if (found === "") {
        re.lastIndex++;
        continue;
      }
      const end = m.index + found.length;
      if (drop && !drop(found)) continue;
      let start = m.index;
      // The word run a credential's name sits in, back to the last span this pattern dropped.
      if (widen) while (start > floor && WIDEN.test(flat[start - 1]!)) start--;
      spans.push([start, end]);
      floor = end;
    }
  }
  return joined(flat, spans)
    .replace(/…(?:\s*…)+/g, GAP)
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * NFKC, except that "…" stays "…" (NFKC makes it "..."): so scrubbing an excerpt again gives the same
 * excerpt (the hit log normalises an entry when it writes it and when it reads it back).
 */
function normalized(text: string): string {
  if (!text.includes(GAP)) return text.normalize("NFKC");
  return text
    .split(GAP)
    .map((part) => part.normalize("NFKC"))
    .join(GAP);
}

/** `text` with each of `spans` (overlapping or not) replaced by one "…". */
function joined(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (end <= at) continue;
    if (start >= at) out += text.slice(at, start) + GAP;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * Where a text was cut: back to the last space when one is near, else back over the run of key
 * characters touching the cut, so no half of a secret is kept. The lookbehind starts the run match at
 * the run's start only, so a long run is scanned once, not once from each of its characters.
 */
const CUT_END = /\s\S{0,100}$|(?<![\w@.:+/=%-])[\w@.:+/=%-]+$/;

/** At most `max` units of `text`, cut at a word edge when it is longer, never inside a pair. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isLowSurrogate(text, max) ? max - 1 : max;
  return text.slice(0, end).replace(CUT_END, "");
}

/**
 * The one excerpt of a message any store keeps: at most `max` units from its start, scrubbed;
 * undefined when nothing is left. Only the message's first `EXCERPT_READ` units are read.
 */
export function excerpt(text: string, max = EXAMPLE_MAX): string | undefined {
  const clean = scrub(bounded(text, EXCERPT_READ));
  if (clean === "" || clean === GAP) return undefined;
  return cut(clean, max);
}

/** `text` (an agent's example) scrubbed and cut to `max` units from its start. */
export const sanitize = excerpt;

/** The first `max` units of `clean`, at a word edge where it has spaces, with no half surrogate pair. */
function cut(clean: string, max: number): string | undefined {
  if (clean.length <= max) return clean;
  const stop = isLowSurrogate(clean, max) ? max - 1 : max;
  let out = clean.slice(0, stop);
  // Cut at a word edge where the text has spaces: a half word reads as noise.
  if (/\s/.test(out)) out = out.replace(/\s\S*$/, "");
  out = out.trim();
  return out === "" || out === GAP ? undefined : out;
}

function isLowSurrogate(text: string, index: number): boolean {
  const c = text.charCodeAt(index);
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * True when scrubbing would change `text` beyond its whitespace: it holds something to drop. A text
 * longer than scrub reads is not vouched for.
 */
export function holdsSecret(text: string): boolean {
  if (text.length > SCRUB_MAX) return true;
  return scrub(text) !== normalized(text).replace(/\s+/g, " ").trim();
}
