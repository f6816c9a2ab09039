/**
 * Card files for the fuzz suites: YAML values, lines and alias bombs that break parsers, frontmatter
 * opened and closed in several ways around a body of `## sections`, and frontmatter data as the API,
 * MCP and the importers hand it to the card writer (JSON-safe values of any type, keys it knows or not).
 */
import fc from "fast-check";
import { KNOWN_FIELDS } from "../../src/card/index.ts";
import { anyString, jsonValue, keyFrom, shortString } from "./_arbitraries.ts";

export const FIELDS: readonly string[] = [...KNOWN_FIELDS, "emails", "st", "card", "<<", "? x"];

/** YAML values that stress the parser: flow and block collections, anchors, tags, bombs, bad quoting. */
export const yamlValue = fc.oneof(
  shortString.map((s) => JSON.stringify(s)),
  shortString,
  fc.constantFrom(
    "[a, b]",
    "[a, [b, [c]]]",
    "{a: 1, b: [x]}",
    "&x [one]",
    "*x",
    "*undefined_anchor",
    "!!binary aGVsbG8=",
    "!!js/function 'function(){ return 1 }'",
    "!!js/undefined ''",
    "!!python/object:os.system ls",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "!!float .nan",
    "!<tag:yaml.org,2002:str> x",
    "!custom x",
    "|\n  block\n  text",
    ">-\n  folded",
    '"unterminated',
    "'a''b'",
    "[unclosed",
    "{unclosed: 1",
    "- item",
    "yes",
    "off",
    "0o17",
    "0x1F",
    "1_000",
    "2024-01-01",
    "~",
    "@reserved",
    "`tick",
    "%TAG",
    "a: b: c",
    "\t tab",
  ),
);

/** A billion-laughs alias bomb of a given width and depth. */
export const aliasBomb = fc
  .tuple(fc.integer({ min: 2, max: 9 }), fc.integer({ min: 2, max: 9 }))
  .map(([w, d]) => {
    const lines = ["a0: &a0 [lol]"];
    for (let i = 1; i < d; i++)
      lines.push(
        `a${i}: &a${i} [${Array(w)
          .fill(`*a${i - 1}`)
          .join(", ")}]`,
      );
    lines.push(`keywords: *a${d - 1}`);
    return lines.join("\n");
  });

export const yamlLine = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(keyFrom(FIELDS), yamlValue).map(([k, v]) => `${k}: ${v}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(keyFrom(FIELDS), fc.array(yamlValue, { maxLength: 3 }))
      .map(([k, items]) => `${k}:\n${items.map((i) => `  - ${i}`).join("\n")}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "# a comment",
      "",
      "---",
      "...",
      "  indented: 1",
      "- top level list",
      "key",
      ": no key",
    ),
  },
  { weight: 1, arbitrary: shortString },
);

export const body = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: anyString },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom("who", "recent", "correspondence", "Recent", "", " x ")
          .map((h) => `## ${h}\n`),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "---\n",
          "#",
          "### deeper\n",
          "##no space\n",
          "\n",
          "\r\n",
          "```\n## fenced\n```\n",
        ),
      },
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

/** Card files: frontmatter from YAML pieces (opened and closed in several ways) and a body of sections. */
export const cardText = fc.oneof(
  { weight: 1, arbitrary: anyString },
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          "---",
          "---",
          "---yaml",
          "--- yml",
          "---js",
          "---coffee",
          "---json",
          "\uFEFF---",
          "----",
          "--- ",
        ),
        fc.oneof(
          { weight: 5, arbitrary: fc.array(yamlLine, { maxLength: 8 }) },
          { weight: 1, arbitrary: aliasBomb.map((b) => [b]) },
        ),
        fc.constantFrom("---", "---", "---\r", "", "--- ", "...", "----"),
        body,
        fc.constantFrom("\n", "\n", "\r\n", "\r"),
      )
      .map(([open, lines, close, text, eol]) => [open, ...lines, close].join(eol) + eol + text),
  },
);

/** JSON-safe data: what the API, MCP and importers hand to serializeCard. */
export const jsonSafe = (v: unknown) => JSON.parse(JSON.stringify(v));

export const frontmatter = fc
  .dictionary(keyFrom(FIELDS), jsonValue(FIELDS, 3), { maxKeys: 8 })
  .map((fm) => jsonSafe(fm) as Record<string, unknown>);
