// The card form read back as an API request body (docs/HTTP-API.md "The card body"), and the try box's
// one-click keyword written into it.

import type { EditorTarget } from "./_editor.ts";
import { readLorebook } from "./_lorebook.ts";

const value = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement | null)?.value ?? "";
const checked = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | null)?.checked ?? true;
const split = (text: string) =>
  text
    .split(/[,，、]/)
    .map((w) => w.trim())
    .filter(Boolean);

/** The form as an API request body (without mtime; the caller adds the one it read). */
export function readEditor(form: HTMLFormElement, target: EditorTarget): Record<string, unknown> {
  const lorebook = readLorebook(form, target.card);
  const body: Record<string, unknown> = {
    kind: target.kind.name,
    title: value(form, "title").trim(),
    keywords: split(value(form, "keywords")),
    aliases: split(value(form, "aliases")),
    tags: split(value(form, "tags")),
    refs: split(value(form, "refs")),
    secondary: {
      all: split(value(form, "sec_all")),
      any: split(value(form, "sec_any")),
      not: split(value(form, "sec_not")),
      not_all: split(value(form, "sec_not_all")),
    },
    scan_depth: value(form, "scan_depth") === "" ? null : Number(value(form, "scan_depth")),
    priority: value(form, "priority") === "" ? 0 : Number(value(form, "priority")),
    enabled: checked(form, "enabled"),
    inject: lorebook.inject,
    ...lorebook.changed,
  };
  const key = value(form, "key").trim();
  if (key) body.key = key;
  const extra = value(form, "extra").trim();
  let others: unknown;
  try {
    others = extra === "" ? {} : JSON.parse(extra);
  } catch {
    throw new Error('Other frontmatter must be a JSON object, e.g. {"emails": ["a@example.com"]}');
  }
  if (others === null || typeof others !== "object" || Array.isArray(others))
    throw new Error("Other frontmatter must be a JSON object");
  body.extra = { ...(others as Record<string, unknown>), ...lorebook.kept };
  if (target.kind.sections.length === 0) {
    body.body = value(form, "body");
  } else {
    const fields: Record<string, string> = {};
    for (const t of form.querySelectorAll<HTMLTextAreaElement>("textarea[data-heading]"))
      fields[t.dataset.heading!] = t.value;
    body.fields = fields;
    body.preamble = value(form, "preamble");
  }
  return body;
}

/** Add a word to the open form's keywords (the "one-click keyword" of the try box). */
export function addKeyword(form: HTMLFormElement, word: string): boolean {
  const input = form.elements.namedItem("keywords") as HTMLInputElement | null;
  if (!input) return false;
  const list = split(input.value);
  if (!list.some((w) => w.toLowerCase() === word.toLowerCase())) list.push(word);
  input.value = list.join(", ");
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus();
  return true;
}

/** What a new card's form holds so far, kept when its kind is changed (the form is built anew). */
export function draftOf(form: HTMLFormElement | null) {
  const v = (n: string) => (form?.elements.namedItem(n) as HTMLInputElement | null)?.value ?? "";
  return {
    title: v("title"),
    keywords: v("keywords")
      .split(",")
      .map((w) => w.trim())
      .filter(Boolean),
  };
}
