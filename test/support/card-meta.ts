// A card's index entry (CardMeta) built in memory, for table tests of what reads the index: a people
// card named `key` with every field at its default and no trigger words; `extra` overrides any field.
import type { CardMeta } from "../../src/card/types.ts";

export function cardMeta(key: string, extra: Partial<CardMeta> = {}): CardMeta {
  return {
    key,
    kind: "people",
    path: `people/${key}.md`,
    title: key,
    keywords: [],
    aliases: [],
    secondary: { all: [], any: [], not: [], notAll: [] },
    scanDepth: null,
    refs: [],
    priority: 0,
    enabled: true,
    inject: true,
    mtime: "0",
    size: 1,
    firstLine: "",
    publicChars: 0,
    ...extra,
  };
}
