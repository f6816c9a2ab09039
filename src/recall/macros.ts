/**
 * The card spec's macros (card/macros.ts) in what recall renders, with their draws made once per
 * conversation and card text: `{{random}}`, `{{pick}}` and `{{roll}}` are hashed from the
 * conversation's identity and the text they sit in (stages/chance.ts), so a card sends the same bytes
 * on every turn of a conversation, as the gateway's replay and the provider's prompt cache need, and
 * draws again only when the card is edited or another conversation starts.
 */
import { readMacros } from "../card/macros.ts";
import { draw, hash32 } from "./stages/chance.ts";
import type { RecallOptions } from "./types.ts";

export type Names = NonNullable<RecallOptions["names"]>;

/** `text` as the model reads it in `conversation`, with `names` for `{{char}}` and `{{user}}`. */
export function expandMacros(text: string, names: Names = {}, conversation = ""): string {
  if (!text.includes("{{") && !text.includes("<")) return text;
  const version = hash32(text).toString(16);
  return readMacros(text, { names, draw: (what) => draw(conversation, `macro\u0000${version}\u0000${what}`) })
    .text;
}
