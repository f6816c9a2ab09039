/**
 * Temporary vaults written as real card files (Markdown + YAML frontmatter in the kind directories),
 * removed afterwards.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface CardFile {
  /** Directory of the kind: people, events, places, things, slang. */
  dir: string;
  key: string;
  keywords: string[];
  body: string;
  extra?: string;
}

/** An always-on card of a harbour town, which the lore switch's tests keep in or leave out. */
export const PREMISE: CardFile = {
  dir: "things",
  key: "the Premise",
  keywords: ["premise"],
  body: "A harbour town where the tide keeps time.\n",
  extra: "context: always\n",
};

export const CARDS: CardFile[] = [
  {
    dir: "events",
    key: "the Friday deploy",
    keywords: ["friday deploy", "deploy"],
    body: "## when\nEvery Friday afternoon, since the team moved to weekly releases.\n",
  },
  {
    dir: "people",
    key: "Alice",
    keywords: ["alice"],
    body: "## who\nThe user's sister; lives in Lyon.\n",
  },
  {
    dir: "places",
    key: "the corner cafe",
    keywords: ["corner cafe", "cafe"],
    body: "## where\nTwo streets from the office, opens at seven.\n",
  },
  { dir: "people", key: "小林", keywords: ["小林", "kobayashi"], body: "## who\nA colleague from Osaka.\n" },
  {
    dir: "things",
    key: "the blue notebook",
    keywords: ["blue notebook"],
    body: "## what\nWhere the plans go.\n",
  },
];

export function cardText(card: CardFile): string {
  const keywords = card.keywords.map((k) => JSON.stringify(k)).join(", ");
  return `---\nkeywords: [${keywords}]\n${card.extra ?? ""}---\n${card.body}`;
}

export function makeVault(cards: readonly CardFile[] = CARDS): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
  for (const dir of ["people", "events", "places", "things", "slang"]) fs.mkdirSync(path.join(root, dir));
  for (const card of cards) fs.writeFileSync(path.join(root, card.dir, `${card.key}.md`), cardText(card));
  return root;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
}
