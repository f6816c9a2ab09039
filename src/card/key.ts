/**
 * Card keys are file names: a key must never escape the vault or be a name some OS refuses
 * (issue 2: "a key can never escape the vault"). Unicode names such as `小明` are welcome.
 */
import { LoreError } from "../errors.ts";

const MAX_KEY_BYTES = 200;
/** Windows device names, refused with or without an extension (`con.md`, `LPT1.txt`). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/** Characters Windows forbids in file names; `/` and `\` also separate paths everywhere. */
const FORBIDDEN = /[/\\<>:"|?*]/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `key` is not a legal card key, or null when it is. */
export function keyProblem(key: string): string | null {
  if (typeof key !== "string" || key.trim() === "") return "a card name cannot be empty";
  if (key === "." || key === "..") return "`.` and `..` are not card names";
  if (CONTROL.test(key)) return "a card name cannot contain control characters";
  if (FORBIDDEN.test(key)) return 'a card name cannot contain / \\ < > : " | ? *';
  if (key.startsWith(".")) return "a card name cannot start with a dot";
  if (/[. ]$/.test(key)) return "a card name cannot end with a dot or a space";
  if (RESERVED.test(key)) return `"${key}" is a reserved device name on Windows`;
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES)
    return `a card name is limited to ${MAX_KEY_BYTES} bytes`;
  return null;
}

/** Return `key` unchanged when it is a legal card key; throw LoreError invalid_key otherwise. */
export function validateKey(key: string): string {
  const problem = keyProblem(key);
  if (problem !== null) throw new LoreError("invalid_key", `${problem}: ${JSON.stringify(key)}`);
  return key;
}

/** A legal key derived from any title (for importers): forbidden characters become `-`. */
export function keyFromTitle(title: string): string {
  let key = title
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/[/\\<>:"|?*]/g, "-")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "");
  while (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES) key = Array.from(key).slice(0, -1).join("");
  key = key.replace(/[. ]+$/, "");
  if (key === "") return "untitled";
  return RESERVED.test(key) ? `${key}_` : key;
}
