// The lorebook fields' controls (_lorebook.ts), grouped as a person thinks of them: each with its label,
// its meaning in one line (the frontmatter name first, for the docs' sake) and the values it takes.
// Typed against the card model's list of lorebook fields: a field renamed there is an error here.
import type { LorebookField } from "../card/index.ts";
import { POLICY_WORDS, POSITION_WORDS } from "./_words.ts";

export type Control =
  | { field: LorebookField; type: "select"; label: string; hint: string; options: [string, string][] }
  | {
      field: LorebookField;
      type: "number";
      label: string;
      hint: string;
      min?: number;
      max?: number;
      step?: string;
    }
  | { field: LorebookField; type: "check"; label: string; hint: string }
  | { field: LorebookField; type: "words"; label: string; hint: string };

const tri = (unset: string, yes: string, no: string): [string, string][] => [
  ["", unset],
  ["true", yes],
  ["false", no],
];

export const GROUPS: { legend: string; controls: Control[] }[] = [
  {
    legend: "When it comes in",
    controls: [
      {
        field: "context",
        type: "select",
        label: "Sent",
        hint: "context: when the card goes in front of the model",
        options: Object.entries(POLICY_WORDS).map(([v, w]) => [v === "automatic" ? "" : v, w.label]),
      },
      {
        field: "probability",
        type: "number",
        label: "Chance (%)",
        hint: "probability: how likely it is sent when it comes up (100 = always)",
        min: 0,
        max: 100,
        step: "any",
      },
      {
        field: "ignore_budget",
        type: "check",
        label: "Does not count against the budget",
        hint: "ignore_budget",
      },
    ],
  },
  {
    legend: "How its words are matched",
    controls: [
      {
        field: "case_sensitive",
        type: "check",
        label: "Match letter case",
        hint: "case_sensitive: “Alice” does not match “alice”",
      },
      {
        field: "whole_words",
        type: "select",
        label: "Whole words",
        hint: "whole_words: whether a keyword may match inside a longer word",
        options: tri(
          "Default: one-letter words stand alone, longer ones match anywhere",
          "Whole words only",
          "Anywhere, even one letter",
        ),
      },
      { field: "regex", type: "check", label: "Keywords are regular expressions", hint: "regex" },
      {
        field: "scan_messages",
        type: "number",
        label: "Messages to look back",
        hint: "scan_messages: instead of the turns above; 0 = the newest message only",
        min: 0,
        step: "1",
      },
    ],
  },
  {
    legend: "Where it goes",
    controls: [
      {
        field: "position",
        type: "select",
        label: "Place",
        hint: "position",
        options: Object.entries(POSITION_WORDS),
      },
      {
        field: "depth",
        type: "number",
        label: "Messages back",
        hint: "depth: with “Inside the chat”, counted from the newest",
        min: 0,
        step: "1",
      },
      {
        field: "role",
        type: "select",
        label: "As a message from",
        hint: "role: with “Inside the chat”",
        options: [
          ["", "The default"],
          ["system", "The system"],
          ["user", "The user"],
          ["assistant", "The assistant"],
        ],
      },
      {
        field: "order",
        type: "number",
        label: "Order",
        hint: "order: among the cards sent, lower goes first",
        step: "1",
      },
    ],
  },
  {
    legend: "Groups: one card of a group is sent",
    controls: [
      { field: "group", type: "words", label: "Groups", hint: "group: names, comma-separated" },
      {
        field: "group_override",
        type: "check",
        label: "Wins its group",
        hint: "group_override: chosen over the group's others",
      },
      {
        field: "group_weight",
        type: "number",
        label: "Weight in the draw",
        hint: "group_weight: default 100",
        min: 0,
        step: "any",
      },
      {
        field: "group_scoring",
        type: "select",
        label: "Best match first",
        hint: "group_scoring: keep only the group's best-matched cards before drawing",
        options: tri("Default (off)", "On", "Off"),
      },
    ],
  },
  {
    legend: "Timing, in messages",
    controls: [
      {
        field: "sticky",
        type: "number",
        label: "Stays in for",
        hint: "sticky: messages it stays after it came in",
        min: 0,
        step: "1",
      },
      {
        field: "cooldown",
        type: "number",
        label: "Rests for",
        hint: "cooldown: messages before it may come again",
        min: 0,
        step: "1",
      },
      {
        field: "delay",
        type: "number",
        label: "Not before message",
        hint: "delay: the conversation needs this many messages first",
        min: 0,
        step: "1",
      },
    ],
  },
  {
    legend: "Cards bringing cards",
    controls: [
      {
        field: "exclude_recursion",
        type: "check",
        label: "Never brought in by another card's text",
        hint: "exclude_recursion",
      },
      {
        field: "prevent_recursion",
        type: "check",
        label: "Its text brings no other card in",
        hint: "prevent_recursion",
      },
      {
        field: "delay_until_recursion",
        type: "check",
        label: "Comes in only through another card's text",
        hint: "delay_until_recursion",
      },
    ],
  },
];
