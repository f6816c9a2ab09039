/**
 * The files beside style.db that belong to it (a restore moves them aside with it, backup/_contents.ts):
 * the inbox of what hooks read and the store has not learned yet, the same set aside once large
 * (_inbox.ts), and the mark that the store held no phrase agents hinted at (_hinted.ts).
 */
export const STYLE_INBOX = "style-inbox.jsonl";
export const STYLE_INBOX_ASIDE = "style-inbox.old.jsonl";
export const STYLE_UNHINTED = "style-unhinted";
export const STYLE_SIDE_FILES = [STYLE_INBOX, STYLE_INBOX_ASIDE, STYLE_UNHINTED];
