/**
 * Names that are stable without being readable back: a habit's id (its kind and folded signal, so the
 * same habit gets the same id in every vault and process) and a conversation's hash (the store never
 * keeps a conversation id itself).
 */
import { styleFold } from "./fold.ts";
import type { HabitKind } from "./types.ts";

const PREFIX: Record<HabitKind, string> = {
  slang: "sl",
  abbreviation: "ab",
  catchphrase: "cp",
  laughter: "la",
  address: "ad",
  dialect: "di",
  idiolect: "id",
  emoji: "em",
  emoticon: "eo",
  punctuation: "pu",
  voice: "vo",
  preference: "pr",
};

/** Bun's own hasher: node:crypto would cost a cold hook about 2 ms just to load. */
export function sha(text: string): string {
  return Bun.CryptoHasher.hash("sha256", text, "hex");
}

/** Ids already worked out: a running gateway sees the same few hundred habits in every message. */
const ids = new Map<string, string>();
const MAX_IDS = 4096;

/** "sl-3f9a0c21b4": the kind's prefix and a hash of the kind and the folded `key`. */
export function habitId(kind: HabitKind, key: string): string {
  const asked = `${kind}\u0000${key}`;
  const known = ids.get(asked);
  if (known !== undefined) return known;
  const id = `${PREFIX[kind]}-${sha(`${kind}\u0000${styleFold(key)}`).slice(0, 10)}`;
  if (ids.size >= MAX_IDS) ids.clear();
  ids.set(asked, id);
  return id;
}

export function conversationHash(conversation: string): string {
  return sha(`conversation\u0000${conversation}`).slice(0, 16);
}
