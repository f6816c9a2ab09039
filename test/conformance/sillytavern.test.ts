/**
 * The judge's half of the conformance suite: every case judged by SillyTavern states the answer that
 * SillyTavern 1.12.6's own code gives, and this file proves it by asking that code. Each book goes
 * through SillyTavern's import (`oracle.mjs import`), each conversation through its `checkWorldInfo`
 * (`oracle.mjs eval`, or a replay of one generation per user message when the book has timed effects or
 * a case counts tokens, which the oracle's dry run cannot: support/_st-replay.ts), and the entries it activates, by title, must meet the case's
 * expectation, and its placements the case's `placement`. lorebooks.test.ts holds lorecards to the
 * same cases (or to its `differs` answer).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { replayTimed } from "../support/_st-replay.ts";
import { haveRealFixture } from "../support/prerequisites.ts";
import { type Answer, haveSillyTavern, type SillyTavern, startSillyTavern } from "../support/sillytavern.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { mismatches, type Placement } from "./_cases.ts";
import {
  bookSource,
  conformanceFiles,
  judgeOf,
  type Loaded,
  needsReplay,
  stQuestion,
  stReplay,
} from "./_files.ts";
import { ST_POSITIONS as POSITIONS, ST_ROLES as ROLES } from "./_st-numbers.ts";

type StEntry = Record<string, unknown>;

/** An entry's title as lorecards imports it: its comment, else its first key. */
function titleOf(e: StEntry): string {
  if (typeof e.comment === "string" && e.comment.trim() !== "") return e.comment.trim();
  const keys = Array.isArray(e.key) ? e.key : [];
  return typeof keys[0] === "string" ? keys[0] : `entry ${String(e.uid)}`;
}

function hasTimedEffects(book: { entries: Record<string, StEntry> }): boolean {
  return Object.values(book.entries).some(
    (e) => Boolean(e.sticky) || Boolean(e.cooldown) || Boolean(e.delay),
  );
}

/**
 * A case that depends on a roll (it gives lorecards a seed) is asked of SillyTavern ROLLS times: its
 * rolls are Math.random's, which nothing outside its code can seed, and such a case states what
 * SillyTavern gives almost always (a weight of 1000 against 1 and 1 loses 2 rolls in 1002, and lost one
 * CI run). The answer it gives most often is its answer.
 */
const ROLLS = 5;
const ROLL = "~roll";

function mostCommon<T>(answers: T[]): T {
  const counts = Map.groupBy(answers, (a) => JSON.stringify(a));
  return [...counts.values()].sort((a, b) => b.length - a.length)[0]![0]!;
}

const judged = conformanceFiles().filter(
  (f) =>
    f.book.cases.some((c) => judgeOf(c, f.book) === "sillytavern") &&
    (f.book.real === undefined || haveRealFixture(`conformance ${f.name} (SillyTavern)`, f.book.real)),
);

describe.skipIf(!haveSillyTavern("test/conformance/sillytavern.test.ts"))(
  "SillyTavern 1.12.6's own code gives the answer each case states",
  () => {
    let st: SillyTavern | undefined;
    let scratch = "";
    const books = new Map<string, { entries: Record<string, StEntry> }>();
    const stored = new Map<string, string>();
    const answers = new Map<string, Answer>();
    const importErrors = new Map<string, string>();

    beforeAll(async () => {
      scratch = tempDir();
      st = await startSillyTavern();
      // One import for every book, each under its conformance file's name (two may share a file name).
      const inbox = path.join(scratch, "in");
      fs.mkdirSync(inbox);
      const sources = judged.map((f: Loaded) => {
        const source = bookSource(f, scratch);
        const named = path.join(inbox, `${f.name.replace(/\.json$/, "")}${path.extname(source)}`);
        fs.copyFileSync(source, named);
        return named;
      });
      const report = await st.importFiles(path.join(scratch, "st"), sources);
      for (const [i, f] of judged.entries()) {
        const r = report.find((x) => x.file === sources[i]);
        if (!r?.out) importErrors.set(f.name, r?.error ?? "not in the import report");
        else {
          stored.set(f.name, r.out);
          books.set(r.out, JSON.parse(fs.readFileSync(r.out, "utf8")));
        }
      }
      const plain = [];
      const timed = [];
      for (const f of judged) {
        const out = stored.get(f.name);
        if (out === undefined) continue;
        for (const [n, c] of f.book.cases.entries()) {
          if (judgeOf(c, f.book) !== "sillytavern") continue;
          const id = `${f.name}#${n}`;
          if (needsReplay(c, f.book, hasTimedEffects(books.get(out)!)))
            timed.push(stReplay(c, f.book, id, out));
          else if (c.options?.seed !== undefined)
            for (let roll = 0; roll < ROLLS; roll++)
              plain.push(stQuestion(c, f.book, `${id}${ROLL}${roll}`, out));
          else plain.push(stQuestion(c, f.book, id, out));
        }
      }
      for (const [id, rolls] of Map.groupBy(await st.evaluate(plain), (a) => a.id.split(ROLL)[0]!))
        answers.set(id, { id, acts: mostCommon(rolls.map((a) => a.acts)) });
      for (const a of await replayTimed(st.url, timed, (file) => books.get(file))) answers.set(a.id, a);
    }, 900_000);

    afterAll(async () => {
      await st?.stop();
      if (scratch) removeDir(scratch);
    });

    for (const f of judged) {
      describe(`${f.name}: ${f.book.about}`, () => {
        for (const [n, c] of f.book.cases.entries()) {
          if (judgeOf(c, f.book) !== "sillytavern") continue;
          test(`${c.name} — SillyTavern's checkWorldInfo says so`, () => {
            expect(importErrors.get(f.name)).toBeUndefined();
            const book = books.get(stored.get(f.name)!)!;
            const answer = answers.get(`${f.name}#${n}`);
            expect(answer).toBeDefined();
            const byUid = new Map(Object.values(book.entries).map((e) => [e.uid, e]));
            const activated = answer!.acts.map((a) => titleOf(byUid.get(a.uid) ?? { uid: a.uid }));
            expect({ activated, problems: mismatches(activated, c) }).toEqual({ activated, problems: [] });
            for (const [title, want] of Object.entries(c.placement ?? {})) {
              const act = answer!.acts.find((a) => titleOf(byUid.get(a.uid) ?? {}) === title);
              const got: Placement = {
                position: act === undefined ? undefined : (POSITIONS[act.position] ?? String(act.position)),
                depth: act?.position === 4 ? act.depth : null,
                role: act?.position === 4 ? (ROLES[act.role ?? 0] ?? null) : null,
              };
              expect(got).toMatchObject(want);
            }
          });
        }
      });
    }
  },
);
