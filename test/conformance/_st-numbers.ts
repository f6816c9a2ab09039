/**
 * SillyTavern's own numbering of an activated entry's place (public/scripts/world-info.js
 * `world_info_position`, 0–7) and of its role at depth, as the judge reports them. Written here from
 * SillyTavern, not taken from lorecards' card/rules.ts, so that the judge's side states the peer's answer.
 */
export const ST_POSITIONS = [
  "before_char",
  "after_char",
  "an_top",
  "an_bottom",
  "at_depth",
  "em_top",
  "em_bottom",
  "outlet",
];
export const ST_ROLES = ["system", "user", "assistant"];
