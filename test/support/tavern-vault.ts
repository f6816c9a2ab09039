/**
 * The vault SillyTavern's chats run against, recorded (../shared/fixtures/real/clients-sillytavern/,
 * its README) and live: cards whose keywords are their names, and a guide.
 */
import type { CardFile } from "./vault.ts";

export const TAVERN_CARDS: CardFile[] = [
  { dir: "people", key: "Zorbelle", keywords: ["Zorbelle"], body: "## who\nA healer of the glade.\n" },
  { dir: "places", key: "Quillhaven", keywords: ["Quillhaven"], body: "## where\nA town of scribes.\n" },
  {
    dir: "things",
    key: "the brass astrolabe",
    keywords: ["brass astrolabe"],
    body: "## what\nIt maps stars.\n",
  },
  {
    dir: "slang",
    key: "flimwhistle",
    keywords: ["flimwhistle"],
    body: "## means\nNonsense, kindly meant.\n",
  },
];

export const TAVERN_GUIDE = "Keep to the canon of the glade.\n";
