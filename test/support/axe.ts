/**
 * axe-core (Deque's accessibility engine, from npm) run inside a page of headless Chromium: the page's
 * Content-Security-Policy forbids the injected script, so the context that opens it must be made with
 * `bypassCSP: true`. Answers the violations at the impacts asked for, each as one line a person can act
 * on: the rule, its impact, and where (the first few nodes' selectors).
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";

const AXE = path.join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The violations axe finds in the page as it is now, at `impacts` (default: serious and critical). */
export async function axeViolations(
  page: Page,
  impacts: readonly string[] = ["serious", "critical"],
): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) {
    await page.addScriptTag({ content: fs.readFileSync(AXE, "utf8") });
  }
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<unknown> } }).axe;
    const r = (await axe.run(document, { resultTypes: ["violations"] })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    };
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  return found.filter((v) => impacts.includes(v.impact ?? ""));
}

/** One line a violation, for an assertion message. */
export function describeViolations(list: readonly AxeViolation[]): string {
  return list.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).join(", ")})`).join("\n");
}
