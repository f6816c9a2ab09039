/**
 * One realistic example card per kind, written by `init`. Bodies are given per section position so a
 * vault whose kinds.yaml renames sections (another language) still gets its own headings.
 */

export interface Example {
  key: string;
  frontmatter: Record<string, unknown>;
  /** Section texts in the order of the kind's default sections; a free-form body when `sections` is empty. */
  sections: string[];
  defaultHeadings: string[];
  freeform?: string;
}

export const EXAMPLES: Record<string, Example> = {
  people: {
    key: "Alice",
    frontmatter: {
      kind: "people",
      title: "Alice",
      keywords: ["Alice", "payments team"],
      aliases: ["Allie"],
      secondary: { not: ["Alice Cooper"] },
      refs: ["the Friday deploy"],
      priority: 1,
    },
    defaultHeadings: ["who", "stance", "recent", "impression"],
    sections: [
      "Alice — works on the payments team, sits two desks away.",
      "Friendly. She reviews my pull requests and I review hers.",
      "Took over the refund flow rewrite in September.",
      "Direct, allergic to meetings that could have been a message.",
    ],
  },
  event: {
    key: "the Friday deploy",
    frontmatter: { kind: "event", title: "the Friday deploy", keywords: ["Friday deploy", "release day"] },
    defaultHeadings: ["when", "who", "what", "stance", "followup"],
    sections: [
      "Every Friday afternoon, since the team moved to weekly releases.",
      "Alice runs it; whoever merged last that week stays on call.",
      "Tag the release, watch the dashboards for an hour, post the changelog.",
      "Nervous about it at first, routine now.",
      "Ask whether the refund rewrite ships this Friday or the next.",
    ],
  },
  place: {
    key: "the corner cafe",
    frontmatter: { kind: "place", title: "the corner cafe", keywords: ["corner cafe", "Marlow's"] },
    defaultHeadings: ["where", "relation", "recent"],
    sections: [
      "Marlow's, on the corner below the office; the window seats have sockets.",
      "Where I go to write when the office is too loud.",
      "They changed the oat milk brand and I am not happy about it.",
    ],
  },
  thing: {
    key: "the green notebook",
    frontmatter: { kind: "thing", title: "the green notebook", keywords: ["green notebook"] },
    defaultHeadings: ["what", "usage", "recent"],
    sections: [
      "A dotted A5 notebook with a green cloth cover, a gift from my sister.",
      "Daily to-do lists on the left page, loose ideas on the right.",
      "Half full; started the second half with a plan for the move.",
    ],
  },
  slang: {
    key: "yak shaving",
    frontmatter: { kind: "slang", title: "yak shaving", keywords: ["yak shaving", "shaving a yak"] },
    defaultHeadings: ["meaning", "origin", "usage"],
    sections: [
      "A chain of small side tasks you must finish before the real task can start.",
      "Programmer folklore; we picked it up from Alice's standup updates.",
      '"Spent the morning yak shaving: the test runner needed a new Node first."',
    ],
  },
  entry: {
    key: "about these cards",
    frontmatter: { title: "about these cards", keywords: ["lorecards", "card book"] },
    defaultHeadings: [],
    sections: [],
    freeform:
      "Each card is one Markdown file. People go in people/, events in events/, places in places/,\n" +
      "things in things/, words and in-jokes in slang/; anything else lives here in the vault root.\n" +
      "A card fires when one of its keywords, aliases or its title shows up in the conversation.\n",
  },
};

/** The example's body with the kind's own headings. */
export function exampleBody(example: Example, headings: string[]): string {
  if (example.freeform !== undefined) return example.freeform;
  return example.sections
    .map((text, i) => `## ${headings[i] ?? example.defaultHeadings[i]}\n${text}\n`)
    .join("\n");
}
