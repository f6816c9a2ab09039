// Every link between the project's Markdown pages finds its file and its heading: the README is a
// front door to the pages in docs/, and a heading renamed or moved must not leave a dead link behind.
// Anchors are GitHub's: the heading lowercased, punctuation other than `-` and `_` dropped, spaces
// turned into hyphens, and `-1`, `-2`, … on repeated headings.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "bench/README.md",
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, line by line. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) out.push(line);
  }
  return out;
}

function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(fs.readFileSync(file, "utf8"))) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m?.[1]) continue;
    const slug = headingSlug(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative links `[text](target)` of a page, code spans left out. */
function linksOf(file: string): string[] {
  const links: string[] = [];
  for (const line of prose(fs.readFileSync(file, "utf8"))) {
    const bare = line.replace(/`[^`]*`/g, "");
    for (const m of bare.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] as string;
      if (!/^[a-z]+:/i.test(target)) links.push(target);
    }
  }
  return links;
}

describe("links between the Markdown pages", () => {
  test.each(PAGES)("every relative link in %s finds its file and heading", (page) => {
    const dead: string[] = [];
    for (const link of linksOf(path.join(ROOT, page))) {
      const [target = "", anchor] = link.split("#");
      const file =
        target === "" ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), target);
      if (!fs.existsSync(file)) dead.push(`${link} (no such file)`);
      else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor))
        dead.push(`${link} (no such heading)`);
    }
    expect(dead).toEqual([]);
  });

  test.each([
    ["The context door: `lorecards explain`", "the-context-door-lorecards-explain"],
    ["settings.yaml", "settingsyaml"],
    [
      "Which cards fire: policy, groups, probability, reach, timed effects",
      "which-cards-fire-policy-groups-probability-reach-timed-effects",
    ],
    ["A home server (systemd)", "a-home-server-systemd"],
    ["Five minutes: your first card", "five-minutes-your-first-card"],
  ])("the heading %p is linked as #%s", (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug);
  });

  test("the README stays a front door: at most about 400 lines", () => {
    const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThanOrEqual(420);
  });
});
