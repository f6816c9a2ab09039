/**
 * Rendering cards into the text the model sees. Byte-stable: the same card version always gives the
 * same bytes, because the gateway's replay re-inserts earlier blocks and a provider's prompt cache
 * only hits on identical prefixes. No clocks, no counters, no map iteration order in here.
 */

export const DEFAULT_FRAMING = "A memory surfaces:\n\n";

export interface RenderInput {
  title: string;
  kind: string;
  /** The card's public text (private sections already removed). */
  text: string;
  /** "See also" lines for referenced cards that did not fire themselves. */
  seeAlso: { key: string; firstLine: string }[];
}

/** The line a card's block opens with; also how a card already in a request is recognised. */
export function cardHeading(title: string, kind: string): string {
  return `### ${title} [${kind}]`;
}

/** One card's block: a `###` title line with the kind, the public text, then one line per ref. */
export function renderCard(input: RenderInput): string {
  const lines = [cardHeading(input.title, input.kind)];
  const body = input.text.replace(/\r\n?/g, "\n").trim();
  if (body.length > 0) lines.push(body);
  for (const ref of input.seeAlso) {
    lines.push(ref.firstLine ? `see also: ${ref.key} — ${ref.firstLine}` : `see also: ${ref.key}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The whole injected text: the framing line, then the blocks separated by a blank line. */
export function renderContext(blocks: readonly string[], framing: string = DEFAULT_FRAMING): string {
  if (blocks.length === 0) return "";
  return framing + blocks.join("\n");
}

/** First non-empty line of a text that is not a heading, for "see also" lines and previews. */
export function firstLine(text: string): string {
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length > 0 && !line.startsWith("#")) return line;
  }
  return "";
}
