// The table of deliberate differences from SillyTavern in docs/INTEROP.md ("Where lorecards differs on
// purpose") lists exactly the differences the conformance suite shows: every case whose `differs`
// answer names a row (its `difference`) is in that row's last column, and every row names at least
// one such case. The suite itself proves each one both ways on every CI run: sillytavern.test.ts asks
// SillyTavern's own code for the case's answer, lorebooks.test.ts holds lorecards to `differs`.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { conformanceFiles } from "../conformance/_files.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const HEADING = "Where lorecards differs on purpose, and why.";

/** Each row of the table: its first cell (the difference) and the files its last cell names. */
function tableRows(): Map<string, string[]> {
  const text = fs.readFileSync(path.join(ROOT, "docs/INTEROP.md"), "utf8");
  const start = text.indexOf(HEADING);
  expect(start).toBeGreaterThan(-1);
  const lines = text.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const table = lines.slice(
    first,
    lines.findIndex((l, i) => i > first && !l.startsWith("|")),
  );
  const rows = new Map<string, string[]>();
  for (const line of table.slice(2)) {
    const cells = line.split(" | ").map((c) => c.replace(/^\| ?| ?\|$/g, "").trim());
    const files = [...(cells.at(-1) ?? "").matchAll(/`([^`]+\.json)`/g)].map((m) => m[1]!);
    rows.set(cells[0]!, files.sort());
  }
  return rows;
}

/** Every difference the conformance cases show, with the files that show it. */
function caseDifferences(): Map<string, string[]> {
  const shown = new Map<string, Set<string>>();
  for (const { name, book } of conformanceFiles())
    for (const c of book.cases) {
      if (c.differs === undefined) continue;
      shown.set(c.differs.difference, (shown.get(c.differs.difference) ?? new Set()).add(name));
    }
  return new Map([...shown].map(([d, files]) => [d, [...files].sort()]));
}

describe("the table of deliberate differences from SillyTavern", () => {
  test("has one row per difference the conformance cases show, naming the files that show it", () => {
    const rows = tableRows();
    expect(rows.size).toBeGreaterThan(0);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(caseDifferences()));
  });

  test("every case that differs on purpose names its difference and says why", () => {
    for (const { name, book } of conformanceFiles())
      for (const c of book.cases)
        if (c.differs !== undefined)
          expect({ name, case: c.name, difference: c.differs.difference, why: c.differs.why }).toEqual({
            name,
            case: c.name,
            difference: expect.stringMatching(/\S/),
            why: expect.stringMatching(/\S/),
          });
  });
});
