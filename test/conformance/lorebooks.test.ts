/**
 * The lorebook conformance suite: every book in test/fixtures/conformance/ is imported into a fresh vault
 * the way a user does it (`lorecards import FILE`, through the compiled binary), and for each case
 * `lorecards try --json` is asked which entries go in front of the model for its conversation. The
 * answer must be SillyTavern's (or the card spec's, for V3 decorators), or our own where the case says
 * we deliberately differ. The rules and the differences are written up in this folder's README.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { haveRealFixture } from "../support/prerequisites.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";
import { type Case, expected, mismatches, type Placement } from "./_cases.ts";
import { bookSource, conformanceFiles, judgeOf } from "./_files.ts";

/** Large enough that no budget interferes, except in the cases about budgets. */
const GENEROUS_BUDGET = 10_000_000;

interface FiredJson {
  title: string;
  in_budget: boolean;
  placement?: Placement;
}

function tryArgs(c: Case, vault: string): string[] {
  const current = c.messages.at(-1);
  if (current?.role !== "user") throw new Error(`${c.name}: the last message must be the user's`);
  const earlier = c.messages.slice(0, -1);
  const o = c.options ?? {};
  const args = [
    "try",
    current.text,
    "--vault",
    vault,
    "--json",
    "--budget",
    String(o.budget ?? GENEROUS_BUDGET),
  ];
  if (earlier.length > 0) args.push("--turns", JSON.stringify(earlier));
  if (o.seed !== undefined) args.push("--seed", o.seed);
  if (o.budgetTokens !== undefined) args.push("--budget-tokens", String(o.budgetTokens));
  if (o.reach !== undefined) args.push("--reach", o.reach);
  return args;
}

/** A case's test name: its sentence, the judge, and our difference when there is one. */
function testName(c: Case, judge: string): string {
  const by = judge === "spec" ? "as the card spec says" : "as SillyTavern does";
  return c.differs ? `${c.name} — lorecards differs on purpose: ${c.differs.why}` : `${c.name} — ${by}`;
}

for (const loaded of conformanceFiles()) {
  const { name: file, book } = loaded;
  const present = book.real === undefined || haveRealFixture(`conformance ${file}`, book.real);

  describe.skipIf(!present)(`${file}: ${book.about}`, () => {
    let vault = "";
    let scratch = "";
    let importError = "";

    beforeAll(async () => {
      await ensureBinary();
      vault = makeVault([]);
      scratch = tempDir();
      const source = bookSource(loaded, scratch);
      const r = await runBinary(["import", source, "--book", "main", "--vault", vault, "--json"]);
      if (r.code !== 0) importError = `lorecards import ${source} failed (${r.code}): ${r.stderr}`;
    }, 300_000);

    afterAll(() => {
      if (vault) removeDir(vault);
      if (scratch) removeDir(scratch);
    });

    for (const c of book.cases) {
      test(testName(c, judgeOf(c, book)), async () => {
        expect(importError).toBe("");
        const r = await runBinary(tryArgs(c, vault));
        expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
        const fired = (JSON.parse(r.stdout) as { fired: FiredJson[] }).fired;
        const chosen = fired.filter((f) => f.in_budget).map((f) => f.title);
        expect({ chosen, problems: mismatches(chosen, expected(c)) }).toEqual({ chosen, problems: [] });
        for (const [title, want] of Object.entries(c.placement ?? {})) {
          expect(fired.find((f) => f.title === title)?.placement).toMatchObject(want);
        }
      });
    }
  });
}
