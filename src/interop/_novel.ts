/**
 * NovelAI `.lorebook` files (`lorebookVersion`, `entries` with `keys`, `text`, `displayName`,
 * `enabled`, `contextConfig`), read as SillyTavern's World Info import reads them (world-info.js
 * `convertNovelLorebook`): keys, the display name as the title, the text, `contextConfig.budgetPriority`
 * as the order, `enabled`. One deliberate difference: `forceActivation` (NovelAI's always-on) makes
 * the card `context: always`, where SillyTavern drops it. NovelAI keys written `/…/` are patterns in
 * both. Everything else (`contextConfig`, `searchRange`, `category`, …) rides along under `st:`.
 */

import { exceptRenamed, isRecord, type Raw } from "./_model.ts";
import { defineWorldBook, entryRows } from "./_world-book.ts";

function isNovelBook(json: unknown): json is Raw & { entries: unknown[] } {
  return isRecord(json) && json.lorebookVersion !== undefined && Array.isArray(json.entries);
}

const RENAMED = ["keys", "text", "displayName", "enabled", "forceActivation"];

function convert(row: Raw): Raw {
  const out = exceptRenamed(row, RENAMED);
  out.key = Array.isArray(row.keys) ? row.keys : [];
  out.comment = typeof row.displayName === "string" ? row.displayName : "";
  out.content = typeof row.text === "string" ? row.text : "";
  out.disable = row.enabled === false;
  out.constant = row.forceActivation === true;
  const config = row.contextConfig;
  if (isRecord(config) && typeof config.budgetPriority === "number") out.order = config.budgetPriority;
  return out;
}

export const novelBook = defineWorldBook({
  format: "novelai",
  label: "NovelAI",
  detect: isNovelBook,
  rows: entryRows(convert),
});
