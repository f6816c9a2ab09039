/**
 * The most of a person's text anything in the vault keeps: style memory's example of a habit, and
 * the hit log's excerpt of the message that fired a card, each at most 60 characters. Before it is cut, the text is normalised (NFKC, so full-width digits are digits), its
 * whitespace collapsed, and anything that looks like a secret or a way to reach someone is dropped
 * and marked "…": links, e-mail addresses, credentials named as such ("password: …", "密码是…"),
 * tokens of known shapes (sk-…, ghp_…, AKIA…, JWTs, PEM blocks), long runs that mix letters and
 * digits the way keys do, IP addresses, and any run of seven or more digits (phone numbers, cards,
 * ID numbers). It errs on dropping: a lost word costs nothing, a kept key costs a lot.
 */

/** The cap, in UTF-16 units (so also in characters). */
export const EXAMPLE_MAX = 60;
/** Text further than this from the sighting is not looked at; its cut edges are trimmed. */
const WINDOW = 1000;
const GAP = "…";

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S*|\bwww\.\S+/gi;
const EMAIL = /[^\s@<>()[\]"'`,;]*@[^\s@<>()[\]"'`,;]+\.[^\s@<>()[\]"'`,;]+/g;
const PEM = /-----BEGIN[^-]*-----[\s\S]*?(?:-----END[^-]*-----|$)/g;
/**
 * A credential named as such, and the value after it (up to the next space; all of it in CJK text).
 * The word run the name sits in goes too, so a name found inside a key takes the key with it.
 */
const NAMED =
  /[\w-]*(?:password|passwd|passcode|passphrase|pwd|secret|token|api[-_ ]?key|apikey|access[-_ ]?key|private[-_ ]?key|client[-_ ]?secret|bearer|authorization|credentials?|cookie|session[-_ ]?id|otp)\s*(?:is|was|[:=：])?\s*\S+|(?:密码|口令|密钥|秘钥|私钥|令牌|验证码|账号|帐号)\s*(?:是|为|[:=：])?\s*\S+/gi;
const KNOWN =
  /(?:sk|pk|rk)-[\w-]{6,}|gh[pousr]_\w{6,}|github_pat_\w+|xox[abprs]-[\w-]+|A[KS]IA[0-9A-Z]{8,}|AIza[\w-]{10,}|eyJ[\w-]*\.[\w-]*(?:\.[\w-]*)?|glpat-[\w-]+|hf_\w{6,}|npm_\w{6,}/g;
/** Runs of key characters; kept only when they read as a word (see `keyLike`). */
const RUN = /[A-Za-z0-9_+/=-]{16,}/g;
const IP = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
/** Digits with the separators phone numbers are written with; dropped from seven digits on. */
const DIGITS = /\+?\d[\d\s().-]*\d/g;

function keyLike(run: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((r) => r.test(run)).length;
  return classes >= 2 || (run.length >= 24 && /[\d_+/=-]/.test(run));
}

/** `text` with every secret-looking part replaced by "…", whitespace collapsed. */
export function scrub(text: string): string {
  // NFKC also turns "…" into "...": a "…" in the result is always a mark of something dropped.
  let out = text.normalize("NFKC");
  out = out.replace(PEM, GAP).replace(/\s+/g, " ");
  out = out.replace(URL, GAP).replace(EMAIL, GAP).replace(NAMED, GAP).replace(KNOWN, GAP);
  out = out.replace(RUN, (run) => (keyLike(run) ? GAP : run));
  out = out.replace(IP, GAP);
  out = out.replace(DIGITS, (run) => (run.replace(/\D/g, "").length >= 7 ? GAP : run));
  return out
    .replace(/…(?:\s*…)+/g, GAP)
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Where a window was cut: up to the first space when one is near, else the run of key characters
 * touching the cut, so no half of a secret is kept.
 */
const CUT_START = /^\S{0,100}\s|^[\w@.:+/=%-]+/;
const CUT_END = /\s\S{0,100}$|[\w@.:+/=%-]+$/;

/**
 * At most `max` UTF-16 units of `text` around [start, end) (the sighting), scrubbed; undefined when
 * nothing is left. The text is cut to a window first (so a pasted log costs nothing), scrubbed,
 * then cut again around the sighting, at word edges where there are spaces.
 */
export function exampleAround(
  text: string,
  start: number,
  end: number,
  max = EXAMPLE_MAX,
): string | undefined {
  const from = Math.max(0, start - WINDOW);
  const to = Math.min(text.length, end + WINDOW);
  let window = text.slice(from, to);
  if (from > 0) window = window.replace(CUT_START, "");
  if (to < text.length) window = window.replace(CUT_END, "");
  const clean = scrub(window);
  if (clean === "" || clean === GAP) return undefined;
  const sighting = scrub(text.slice(start, end));
  const at = sighting === "" ? -1 : clean.indexOf(sighting);
  return cut(clean, at === -1 ? 0 : at, at === -1 ? 0 : sighting.length, max);
}

/** `text` (whole) scrubbed and cut to `max` units from its start: an agent's example. */
export function sanitize(text: string, max = EXAMPLE_MAX): string | undefined {
  const clean = scrub(text);
  if (clean === "" || clean === GAP) return undefined;
  return cut(clean, 0, 0, max);
}

/** `max` units of `clean` that hold [at, at + length) when they fit, with no half surrogate pair. */
function cut(clean: string, at: number, length: number, max: number): string | undefined {
  if (clean.length <= max) return clean;
  let begin = Math.max(0, Math.min(at - Math.floor((max - length) / 2), clean.length - max));
  let stop = begin + max;
  if (isLowSurrogate(clean, begin)) begin++;
  if (isLowSurrogate(clean, stop)) stop--;
  let out = clean.slice(begin, stop);
  // Cut at word edges where the text has spaces: a half word reads as noise.
  if (begin > 0 && /\s/.test(out)) out = out.replace(/^\S*\s/, "");
  if (stop < clean.length && /\s/.test(out)) out = out.replace(/\s\S*$/, "");
  out = out.trim();
  return out === "" || out === GAP ? undefined : out;
}

function isLowSurrogate(text: string, index: number): boolean {
  const c = text.charCodeAt(index);
  return c >= 0xdc00 && c <= 0xdfff;
}

/** True when scrubbing would change `text` beyond its whitespace: it holds something to drop. */
export function holdsSecret(text: string): boolean {
  return scrub(text) !== text.normalize("NFKC").replace(/\s+/g, " ").trim();
}
