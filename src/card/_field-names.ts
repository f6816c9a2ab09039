/**
 * The card's own fields: the ones the editor's form has a control for. A write that leaves one out
 * resets it (serialize.ts), and the form shows every other key as `extra`. The lorebook fields
 * (_rule-fields.ts LOREBOOK_FIELDS) are read too, but are not in this list: no form shows them, so
 * they travel with the other keys and survive every save as written.
 */
export const KNOWN_FIELDS = [
  "kind",
  "title",
  "keywords",
  "aliases",
  "secondary",
  "scan_depth",
  "refs",
  "priority",
  "enabled",
  "inject",
  "tags",
] as const;
