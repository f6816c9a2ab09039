/**
 * Emoji found by their Unicode properties (UTS #51), so a new emoji is noticed without a dictionary
 * entry: an Extended_Pictographic character with its presentation selector and skin-tone modifiers,
 * joined by ZWJ into one sequence (👩‍💻 is one emoji, not three). A signal is the sequence without
 * U+FE0F, so ❤️ and ❤ are the same habit. Pictographs that read as text unless asked for emoji
 * (©, ®, ™, ‼, arrows) count only with U+FE0F; flags and keycaps are left out: they say where or
 * what, not how someone talks.
 */

const SEQUENCE =
  /\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})*(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})*)*/gu;
const PRESENTED = /^\p{Emoji_Presentation}/u;

export interface EmojiHit {
  emoji: string;
  start: number;
  end: number;
}

/** Below U+2600 a pictograph is typographic (©, ™, ↔) unless written with U+FE0F. */
function looksLikeEmoji(seq: string): boolean {
  if (seq.includes("\uFE0F") || seq.includes("\u200D") || PRESENTED.test(seq)) return true;
  return (seq.codePointAt(0) ?? 0) >= 0x2600;
}

export function emojiKey(seq: string): string {
  return seq.replaceAll("\uFE0F", "");
}

/** Every emoji in `text`, in order, with its position in `text`. */
export function findEmoji(text: string): EmojiHit[] {
  const out: EmojiHit[] = [];
  if (!/[^\x00-\x7f]/.test(text)) return out;
  for (const m of text.matchAll(SEQUENCE)) {
    if (!looksLikeEmoji(m[0])) continue;
    out.push({ emoji: emojiKey(m[0]), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** True when `text` is one emoji sequence and nothing else (a hint naming an emoji). */
export function isOneEmoji(text: string): boolean {
  const hits = findEmoji(text);
  return hits.length === 1 && hits[0]!.start === 0 && hits[0]!.end === text.length;
}
