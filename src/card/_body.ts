/**
 * The body as preamble + `## heading` sections, by offsets, so that every byte can be given back as it
 * was (headings not in the kind's table are kept verbatim; `update_recent` touches one section only).
 * Headings inside fenced code blocks do not start sections. Works on LF or CRLF text.
 */

export interface SectionSpan {
  heading: string;
  /** Offset of the `## ` line. */
  start: number;
  /** Offset of the text under the heading (just after the heading line's newline). */
  textStart: number;
  /** Offset just past the section (start of the next heading, or the end of the text). */
  end: number;
}

const HEADING = /^##[ \t]+(.*?)[ \t]*(?:#+[ \t]*)?\r?\n?$/;
const FENCE = /^[ ]{0,3}(```|~~~)/;

/** Split `text` into section spans; the preamble is `text.slice(from, spans[0]?.start ?? end)`. */
export function scanSections(text: string, from = 0): SectionSpan[] {
  const spans: SectionSpan[] = [];
  let fence: string | null = null;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl === -1 ? text.length : nl + 1;
    const line = text.slice(pos, lineEnd);
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!;
      else if (fenceMatch[1] === fence) fence = null;
    } else if (fence === null) {
      const m = HEADING.exec(line);
      if (m && m[1] !== "") {
        const last = spans[spans.length - 1];
        if (last) last.end = pos;
        spans.push({ heading: m[1]!, start: pos, textStart: lineEnd, end: text.length });
      }
    }
    pos = lineEnd;
  }
  return spans;
}

const fold = (s: string) => s.trim().toLowerCase();

/** The span of the first section whose heading equals `heading` (case-insensitive). */
export function findSection(text: string, heading: string, from = 0): SectionSpan | undefined {
  return scanSections(text, from).find((s) => fold(s.heading) === fold(heading));
}

/**
 * Replace the text of one section, leaving every other byte as it was; append the section at the end
 * when it is missing. Line endings of the new text follow the file's (CRLF if the heading used CRLF).
 */
export function replaceSectionText(text: string, heading: string, content: string, from = 0): string {
  const span = findSection(text, heading, from);
  const crlf = span ? text.slice(span.start, span.textStart).endsWith("\r\n") : text.includes("\r\n");
  const eol = crlf ? "\r\n" : "\n";
  const body = content.replace(/\r\n?/g, "\n").replace(/^\n+/, "").trimEnd().split("\n").join(eol);
  if (!span) {
    const sep = text.length === 0 || text.endsWith("\n") ? "" : eol;
    const gap = text.length === 0 || text.endsWith(`${eol}${eol}`) ? "" : eol;
    return `${text}${sep}${gap}## ${heading}${eol}${body}${eol}`;
  }
  const old = text.slice(span.textStart, span.end);
  let trailing = /(?:\r?\n)*$/.exec(old)![0];
  if (!trailing.includes("\n")) trailing = span.end < text.length ? `${eol}${eol}` : eol;
  const headingBreak = span.textStart === text.length && !text.endsWith("\n") ? eol : "";
  return `${text.slice(0, span.textStart)}${headingBreak}${body}${trailing}${text.slice(span.end)}`;
}
