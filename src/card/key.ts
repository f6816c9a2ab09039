/**
 * Card keys are file names: a key must never escape the vault or be a name some OS refuses
 * (README "Card format": a key can never escape the vault). Unicode names such as `小明` are welcome.
 * `keyFromTitle` and `numberedKey` make a legal key out of any text, in time linear in its length.
 */
import { LoreError } from "../errors.ts";

const MAX_KEY_BYTES = 200;
/**
 * Windows device names (Microsoft, "Naming Files, Paths, and Namespaces"): CON, PRN, AUX, NUL,
 * COM0–9, LPT0–9 and their superscript-digit forms, refused also "followed immediately by an
 * extension" (`NUL.txt`, `NUL.tar.gz`); Windows drops spaces before that dot, so `aux .txt` is AUX too.
 */
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?= *(\.|$))/i;
/** Characters Windows forbids in file names; `/` and `\` also separate paths everywhere. */
const FORBIDDEN = /[/\\<>:"|?*]/;
/**
 * Control characters (C0, DEL, C1) and the Bidi_Control characters of UAX #9 (U+061C, U+200E/F,
 * U+202A–E, U+2066–9): the latter are invisible and reorder how a name is shown, so
 * `invoice\u202Etxt.exe` would be listed as `invoiceexe.txt`.
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/u;

/** Why `key` is not a legal card key, or null when it is. */
export function keyProblem(key: string): string | null {
  if (typeof key !== "string" || key.trim() === "") return "a card name cannot be empty";
  if (key === "." || key === "..") return "`.` and `..` are not card names";
  if (CONTROL.test(key))
    return "a card name cannot contain control characters (invisible text-direction marks included)";
  if (!key.isWellFormed()) return "a card name cannot contain a broken character (an unpaired surrogate)";
  if (FORBIDDEN.test(key)) return 'a card name cannot contain / \\ < > : " | ? *';
  if (key.startsWith(".")) return "a card name cannot start with a dot";
  if (/[. ]$/.test(key)) return "a card name cannot end with a dot or a space";
  if (DEVICE.test(key))
    return "a card name cannot be a device name Windows reserves (CON, PRN, AUX, NUL, COM1, LPT1, …)";
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES)
    return `a card name is limited to ${MAX_KEY_BYTES} bytes`;
  return null;
}

/**
 * Why `key` is not a legal key for a card in a sub-folder of its kind's folder (`family/Rin`: folder
 * names and the file name joined by `/`), or null when it is: each part must be a legal card name.
 */
export function pathKeyProblem(key: string): string | null {
  if (typeof key !== "string" || !key.includes("/")) return keyProblem(key);
  for (const part of key.split("/")) {
    const problem = keyProblem(part);
    if (problem !== null) return `${problem} (in "${part}")`;
  }
  return null;
}

/** Return `key` unchanged when it is a legal card key (sub-folders allowed); LoreError invalid_key otherwise. */
export function validateKey(key: string): string {
  const problem = pathKeyProblem(key);
  if (problem !== null) throw new LoreError("invalid_key", `${problem}: ${JSON.stringify(key)}`);
  return key;
}

/**
 * A legal key derived from any title (for importers and as a suggestion): direction marks dropped,
 * control characters and runs of white space become one space, forbidden characters `-`, no leading
 * or trailing dot or space, at most 200 bytes, and `_` after a device name (`aux.txt` → `aux_.txt`).
 */
export function keyFromTitle(title: string): string {
  const cleaned = title
    .toWellFormed()
    .replace(/\p{Bidi_Control}/gu, "")
    .replace(/\p{Cc}/gu, " ")
    .replace(/[/\\<>:"|?*]/g, "-")
    .replace(/\s+/g, " ")
    .replace(/^[. ]+/, "");
  return fitKey(cleaned, "") || "untitled";
}

/** `base` (a legal key) numbered `n`, as `base n`, cut so the whole stays within the byte limit. */
export function numberedKey(base: string, n: number): string {
  return fitKey(base, ` ${n}`) || `untitled ${n}`;
}

/**
 * `name` (no leading dot or space, nothing forbidden) cut to leave room for `suffix`, then suffixed.
 * Why the result is legal: the cut keeps at least the first character, so the name stays non-empty
 * with no leading dot; trimming stops at the first other character; a device name gets `_` right after
 * it, which no device pattern accepts, and the cut that follows keeps that prefix; `suffix` (empty or
 * ` n`) ends in a digit and cannot complete a device name, since none contains a space.
 */
function fitKey(name: string, suffix: string): string {
  const room = MAX_KEY_BYTES - Buffer.byteLength(suffix, "utf8");
  let key = trimEnd(cutBytes(name, room));
  if (DEVICE.test(key)) key = trimEnd(cutBytes(key.replace(DEVICE, "$1_"), room));
  return key === "" ? "" : key + suffix;
}

/** Without trailing dots and spaces; only ever applied to names already cut to the byte limit. */
function trimEnd(key: string): string {
  return key.replace(/[. ]+$/, "");
}

/** The longest prefix of `text` of at most `max` UTF-8 bytes, cut between code points; one pass. */
function cutBytes(text: string, max: number): string {
  if (text.length * 3 <= max) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    const pair = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = pair ? 4 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes + size > max) return text.slice(0, i);
    bytes += size;
    if (pair) i++;
  }
  return text;
}
