/**
 * The macros of injected text (card spec §10, as SillyTavern reads them): `{{char}}`, `<char>` and
 * `<bot>` become the character's name, `{{user}}` and `<user>` the user's, in any letter case, and a
 * `{{// comment}}` (it may span lines) is removed. Names come from `--char` / `--user` or the vault's
 * settings.yaml; a macro whose name is not configured stays exactly as written, so nothing is
 * guessed. One pass over the text: a name that itself looks like a macro is inserted as it is, never
 * expanded again. Pure and byte-stable: the same text and names always give the same bytes.
 */
import type { RecallOptions } from "./types.ts";

export type Names = NonNullable<RecallOptions["names"]>;

const MACRO = /\{\{\/\/[\s\S]*?\}\}|\{\{(char|user)\}\}|<(char|bot|user)>/gi;

/** `text` with its macros replaced; unchanged when it holds none. */
export function expandMacros(text: string, names: Names = {}): string {
  if (!text.includes("{{") && !text.includes("<")) return text;
  return text.replace(MACRO, (whole, curly: string | undefined, angle: string | undefined) => {
    const word = (curly ?? angle)?.toLowerCase();
    if (word === undefined) return ""; // a comment
    const name = word === "user" ? names.user : names.char;
    return name === undefined || name === "" ? whole : name;
  });
}

/**
 * The names `text` uses that `names` does not give (for `check`: such a macro reaches the model as
 * written), in the order char, user.
 */
export function unnamedMacros(text: string, names: Names = {}): ("char" | "user")[] {
  const used = new Set<"char" | "user">();
  for (const m of text.matchAll(MACRO)) {
    const word = (m[1] ?? m[2])?.toLowerCase();
    if (word !== undefined) used.add(word === "user" ? "user" : "char");
  }
  return (["char", "user"] as const).filter((n) => used.has(n) && !names[n]);
}
