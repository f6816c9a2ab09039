/**
 * Building and patching the frontmatter's YAML document so that what we write reads back as meant
 * (docs: TOOLCHAIN "gray-matter + yaml"). The `yaml` package reads more than it can write back:
 * - a string with a line of only spaces/tabs, a trailing blank line or a U+FEFF is written in a block
 *   or plain style that reads back changed or not at all: such strings are double-quoted;
 * - a key written twice is read as its last value, but `doc.set` edits the first: we edit the last
 *   and drop the others;
 * - replacing a node an alias refers to leaves the alias dangling: the alias gets a copy first;
 * - `\uFEFF---` inside the frontmatter is a document start to `yaml`, written back as a plain `---`
 *   (which is our closing fence): never written;
 * - an anchor with a control character is read but refused by the writer: dropped when nothing refers
 *   to it, otherwise the edit is refused.
 */
import type { Document, Node, Pair, YAMLMap } from "yaml";
import { describeError, LoreError } from "../errors.ts";
import { yamlLib } from "./_lazy.ts";

const TO_STRING = { flowCollectionPadding: false, lineWidth: 0 } as const;
// The anchor characters the `yaml` writer refuses (yaml/dist/doc/anchors.js).
const BAD_ANCHOR = /[\x00-\x19\s,[\]{}]/;

/** A string that only double quotes write back unchanged (also the fast writer's rule: _plain-write.ts). */
export function needsQuotes(s: string): boolean {
  return s.includes("\uFEFF") || /(^|\n)[ \t]+(\n|$)/.test(s) || /\n[ \t]*\n$/.test(s);
}

function scalarList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => v === null || typeof v !== "object");
}

/** A new node for `value`: word lists on one line, fragile strings double-quoted. */
export function makeNode(doc: Document, value: unknown): Node {
  const { isScalar, isSeq, visit } = yamlLib();
  // Shared objects are written out in full, not as anchors and aliases a later edit could break.
  const node = doc.createNode(value, { aliasDuplicateObjects: false }) as Node;
  // Lists of words read best on one line, as in the README's example card:
  // `keywords: [Alice, payments team]`.
  if (isSeq(node) && scalarList(value)) node.flow = true;
  if (isScalar(node)) {
    if (typeof node.value === "string" && needsQuotes(node.value)) node.type = "QUOTE_DOUBLE";
    return node;
  }
  visit(node, {
    Seq(_, seq) {
      if (seq.items.every((i) => isScalar(i))) seq.flow = true;
    },
    Scalar(_, s) {
      if (typeof s.value === "string" && needsQuotes(s.value)) s.type = "QUOTE_DOUBLE";
    },
  });
  return node;
}

/** The document's root mapping; a null document (`~`, `null`, `...`, empty) becomes an empty one. */
export function rootMap(doc: Document): YAMLMap {
  const { isMap, isScalar } = yamlLib();
  if (isMap(doc.contents)) return doc.contents as YAMLMap;
  const old = doc.contents as Node | null;
  if (old === null || (isScalar(old) && old.value === null)) {
    const map = doc.createNode({}) as YAMLMap;
    if (old?.commentBefore) map.commentBefore = old.commentBefore;
    if (old?.comment) map.comment = old.comment;
    doc.contents = map;
    return map;
  }
  throw new LoreError("parse_error", "frontmatter must be a mapping of `key: value` lines");
}

/** A key as `toJS()` names it in the data (collection keys never match an edit). */
function keyName(key: unknown): string | undefined {
  const { isScalar, isNode } = yamlLib();
  if (isScalar(key)) return key.value === null ? "" : String(key.value);
  return isNode(key) ? undefined : String(key);
}

function pairsNamed(map: YAMLMap, key: string): Pair[] {
  return (map.items as Pair[]).filter((p) => keyName(p.key) === key);
}

/**
 * Before `gone` (nodes or pairs) leaves the document, give every alias elsewhere that refers into it a
 * copy of what it refers to (anchors dropped from the copy), so no alias is left dangling.
 */
function detach(doc: Document, gone: unknown[]): void {
  const { isAlias, isNode, visit } = yamlLib();
  const inside = new Set<unknown>();
  for (const g of gone) {
    if (g === null || typeof g !== "object") continue;
    inside.add(g);
    if (isNode(g) || yamlLib().isPair(g)) visit(g as Node, (_, n) => void inside.add(n));
  }
  visit(doc, (_, n) => {
    if (inside.has(n)) return visit.SKIP;
    if (!isAlias(n)) return undefined;
    const target = n.resolve(doc);
    if (target === undefined || !inside.has(target)) return undefined;
    const copy = target.clone() as Node;
    visit(copy, (_k, c) => {
      if (isNode(c) && !isAlias(c)) delete (c as { anchor?: string }).anchor;
    });
    if (!isAlias(copy)) delete (copy as { anchor?: string }).anchor;
    return copy;
  });
}

/** Set `key` (its last occurrence; earlier ones are dropped) to `value`; returns the new node. */
export function setKey(doc: Document, map: YAMLMap, key: string, value: unknown): Node {
  const pairs = pairsNamed(map, key);
  const last = pairs[pairs.length - 1];
  const node = makeNode(doc, value);
  if (last === undefined) {
    map.items.push(doc.createPair(makeNode(doc, key), node) as Pair);
    return node;
  }
  // A list written one item a line (Obsidian's way) stays so: the person's style, not ours.
  const { isSeq } = yamlLib();
  if (isSeq(node) && isSeq(last.value) && !last.value.flow) node.flow = false;
  const earlier = pairs.slice(0, -1);
  detach(doc, [...earlier, last.value]);
  map.items = map.items.filter((p) => !earlier.includes(p as Pair));
  last.value = node;
  return node;
}

/** Delete every occurrence of `key`; false when there was none. */
export function deleteKey(doc: Document, map: YAMLMap, key: string): boolean {
  const pairs = pairsNamed(map, key);
  if (pairs.length === 0) return false;
  detach(doc, pairs);
  map.items = map.items.filter((p) => !pairs.includes(p as Pair));
  return true;
}

/** Drop anchors the writer refuses; refuse when an alias refers to one. */
function dropBadAnchors(doc: Document): void {
  const { isAlias, isNode, visit } = yamlLib();
  const bad: Node[] = [];
  const used = new Set<string>();
  visit(doc, (_, n) => {
    if (isAlias(n)) used.add(n.source);
    else if (isNode(n) && n.anchor !== undefined && BAD_ANCHOR.test(n.anchor)) bad.push(n);
  });
  for (const n of bad) {
    if (used.has(n.anchor!)) {
      throw new LoreError(
        "parse_error",
        `frontmatter anchor ${JSON.stringify(`&${n.anchor}`)} cannot be written back: rename it`,
      );
    }
    delete (n as { anchor?: string }).anchor;
  }
}

/** The document as YAML text for between the fences ("" when it holds nothing). */
export function yamlText(doc: Document): string {
  const { isCollection } = yamlLib();
  const c = doc.contents;
  if (isCollection(c) && c.items.length === 0 && !c.commentBefore && !c.comment) doc.contents = null;
  if (doc.contents === null && !doc.commentBefore && !doc.comment) return "";
  // A document start would be written as `---`: our closing fence.
  if (doc.directives) doc.directives.docStart = null;
  dropBadAnchors(doc);
  try {
    return doc.toString(TO_STRING);
  } catch (err) {
    throw new LoreError("parse_error", `frontmatter cannot be written back: ${describeError(err)}`, {
      cause: err,
    });
  }
}
