/**
 * Card → text. A new card is written fresh; an existing file is edited in place: its YAML document is
 * patched (comments and quoting survive), keys the caller did not mention and that we do not know are
 * kept (README "Card format": unknown frontmatter keys survive every save), and untouched parts keep
 * their bytes.
 */
import type { Document, Node } from "yaml";
import { LoreError } from "../errors.ts";
import { replaceSectionText } from "./_body.ts";
import { KNOWN_FIELDS } from "./_fields.ts";
import { locateFrontmatter, normalizeText, parseYamlDocument } from "./_frontmatter.ts";
import { yamlLib } from "./_lazy.ts";

const TO_STRING = { flowCollectionPadding: false, lineWidth: 0 } as const;

/** What an update may change: any frontmatter keys (a value of `undefined` deletes the key), the body. */
export interface CardEdit {
  frontmatter?: Record<string, unknown>;
  body?: string;
}

function scalarList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => v === null || typeof v !== "object");
}

function makeNode(doc: Document, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  // Lists of words read best on one line, as in the README's example card:
  // `keywords: [Alice, payments team]`.
  const { isScalar, isSeq } = yamlLib();
  if (isSeq(node) && scalarList(value)) node.flow = true;
  if (isSeq(node) || node === null) return node;
  yamlLib().visit(node, {
    Seq(_, seq) {
      if (seq.items.every((i) => isScalar(i))) seq.flow = true;
    },
  });
  return node;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (scalarList(a) && scalarList(b)) {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((v, i) => String(v) === String(y[i]));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function frontmatterText(data: Record<string, unknown>): string {
  const doc = new (yamlLib().Document)({});
  for (const [k, v] of Object.entries(data)) if (v !== undefined) doc.set(k, makeNode(doc, v));
  return Object.keys(doc.toJS() ?? {}).length === 0 ? "" : doc.toString(TO_STRING);
}

function ensureFinalNewline(body: string): string {
  return body === "" || body.endsWith("\n") ? body : `${body}\n`;
}

/** A whole new card file. */
export function serializeCard(draft: { frontmatter: Record<string, unknown>; body: string }): string {
  const body = normalizeText(draft.body);
  return `---\n${frontmatterText(draft.frontmatter)}---\n${ensureFinalNewline(body)}`;
}

/** Patch a YAML document; returns false when nothing changed. */
function patchDocument(doc: Document, edits: Record<string, unknown>): boolean {
  const current = (doc.toJS({ maxAliasCount: 100 }) ?? {}) as Record<string, unknown>;
  let changed = false;
  for (const [k, v] of Object.entries(edits)) {
    if (v === undefined) {
      if (k in current) changed = doc.delete(k) || changed;
    } else if (!(k in current) || !sameValue(current[k], v)) {
      doc.set(k, makeNode(doc, v));
      changed = true;
    }
  }
  // A known field the caller left out is reset to its default; unknown keys always survive.
  for (const k of KNOWN_FIELDS) {
    if (k !== "kind" && k in current && !(k in edits)) changed = doc.delete(k) || changed;
  }
  return changed;
}

/**
 * Apply `edits` to an existing card file's text, keeping everything not edited byte for byte
 * (the BOM and CRLF line endings included).
 */
export function updateCardText(oldText: string, edits: CardEdit): string {
  const span = locateFrontmatter(oldText);
  const crlf = oldText.includes("\r\n");
  const eol = (s: string) => (crlf ? s.replace(/\r?\n/g, "\r\n") : s);
  if (span === null || !["", "yaml", "yml"].includes(span.language.toLowerCase())) {
    if (span !== null) throw new LoreError("parse_error", "only YAML frontmatter can be edited");
    const body = edits.body ?? normalizeText(oldText);
    return eol(serializeCard({ frontmatter: edits.frontmatter ?? {}, body }));
  }
  let head = oldText.slice(0, span.bodyStart);
  if (edits.frontmatter !== undefined) {
    const yamlText = normalizeText(oldText.slice(span.yamlStart, span.yamlEnd + 1));
    const doc = parseYamlDocument(yamlText);
    if (patchDocument(doc, edits.frontmatter)) {
      const bom = oldText.charCodeAt(0) === 0xfeff ? "\uFEFF" : "";
      const yaml =
        Object.keys(doc.toJS() ?? {}).length === 0 && !doc.commentBefore ? "" : doc.toString(TO_STRING);
      head = `${bom}${oldText.slice(bom.length, span.yamlStart)}${eol(yaml)}${eol("---\n")}`;
    }
  }
  const body =
    edits.body === undefined
      ? oldText.slice(span.bodyStart)
      : eol(ensureFinalNewline(normalizeText(edits.body)));
  return head + body;
}

/** Replace only the text of one section in a card file (append it when missing); all else unchanged. */
export function replaceSection(oldText: string, heading: string, content: string): string {
  const span = locateFrontmatter(oldText);
  return replaceSectionText(oldText, heading, content, span?.bodyStart ?? 0);
}
