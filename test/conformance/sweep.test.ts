/**
 * The sweep: on every real book in ../shared/fixtures/real/ and every book of the conformance files
 * that SillyTavern judges, a conversation naming each entry (by its first plain key, in the current
 * message, and again one message back), and one naming none, is put to SillyTavern 1.12.6's own `checkWorldInfo` and to
 * lorecards' recall of the same book imported into a fresh vault, and the two must activate and place
 * the same entries. Both sides are asked alike: no budget, no recursion (`reach: named`), 2 messages
 * scanned (SillyTavern's shipped depth; every conversation here fits lorecards' default window too).
 * Entries whose answer is a draw (probability below 100, inclusion groups) or a clock (sticky,
 * cooldown, delay: a dry run ignores them) are not compared. What differs must be one of the listed
 * deliberate differences (docs/INTEROP.md); anything else fails, naming the conversation. Then each
 * book as the compiled binary exports it to World Info (`lorecards export --format st`, after
 * `lorecards import` into a fresh vault) goes through SillyTavern's import, which must give back every
 * field of every entry. Books written to show the deliberate differences (`differences` in their
 * conformance file) are left out: their entries are made to disagree.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { recallJson } from "../../src/explain/index.ts";
import { jiebaSegmenter } from "../../src/match/index.ts";
import { openEngine } from "../../src/recall/index.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import {
  type Answer,
  haveSillyTavern,
  type Question,
  type SillyTavern,
  startSillyTavern,
} from "../support/sillytavern.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { bookSource, conformanceFiles, judgeOf } from "./_files.ts";
import { ST_POSITIONS as POSITIONS, ST_ROLES as ROLES } from "./_st-numbers.ts";

/** The real books: SillyTavern's own, a card as PNG and as JSON, and three from its users. */
const REAL = [
  "st-worldinfo-Eldoria.json",
  "st-card-Seraphina.png",
  "st-card-Seraphina.chara.json",
  "hxh_Weather_Director.json",
  "dootaang_lorebook_export.json",
  "sora_Eldoria_V10.6.0.json",
];

/**
 * Entries asked about per book at most: a larger book is sampled evenly (every n-th entry), which keeps
 * the sweep within minutes on a busy machine and still reaches every kind of entry the book has.
 */
const PER_BOOK = 120;

type StEntry = Record<string, unknown> & { uid: number };

/** An entry's title as lorecards imports it: its comment, else its first key. */
function titleOf(e: StEntry): string {
  if (typeof e.comment === "string" && e.comment.trim() !== "") return e.comment.trim();
  const keys = Array.isArray(e.key) ? (e.key as string[]) : [];
  return keys[0] ?? `entry ${e.uid}`;
}

/** Whether SillyTavern's answer for the entry is a draw or a clock, which a single dry run cannot judge. */
function undecidable(e: StEntry): boolean {
  const chance = e.useProbability !== false && typeof e.probability === "number" && e.probability < 100;
  const grouped = typeof e.group === "string" && e.group.trim() !== "";
  return chance || grouped || Boolean(e.sticky) || Boolean(e.cooldown) || Boolean(e.delay);
}

/** The first key that is plain text (not a /pattern/), for a message that names the entry. */
function plainKey(e: StEntry): string | undefined {
  const keys = Array.isArray(e.key) ? (e.key as unknown[]) : [];
  return keys.find(
    (k): k is string => typeof k === "string" && k.trim() !== "" && !/^\/.+\/[a-z]*$/.test(k.trim()),
  );
}

/** A sentence that names `key`: in Chinese, Japanese or Korean without spaces around it, as those are written. */
function naming(key: string): string {
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(key)
    ? `${key.trim()}在哪里？`
    : `Tell me about ${key.trim()}.`;
}

/** Where an activated entry goes, in lorecards' words (a depth's role defaults to system, as there). */
function stPlace(a: Answer["acts"][number]): string {
  const position = POSITIONS[a.position] ?? String(a.position);
  return a.position === 4 ? `${position}@${a.depth}/${ROLES[a.role ?? 0]}` : position;
}

interface Sweep {
  book: string;
  entries: Map<number, StEntry>;
  chats: { id: string; chat: string[] }[];
  stBook: string;
  vault: string;
}

interface Difference {
  chat: string;
  what: string;
  /** The deliberate difference that explains it, or undefined. */
  why?: string;
}

/** The deliberate differences a sweep may show, each with a test of whether it explains a difference. */
function explain(d: {
  title: string;
  side: "ours" | "theirs" | "place";
  chat: string[];
}): string | undefined {
  const text = d.chat.join("\n").toLowerCase();
  if (d.side === "ours" && text.includes(d.title.toLowerCase())) return "the title is a term";
  return undefined;
}

const books: string[] = [
  ...REAL.filter((f) => haveRealFixture(`conformance sweep ${f}`, f)).map((f) => path.join(REAL_FIXTURES, f)),
];

describe.skipIf(!haveSillyTavern("test/conformance/sweep.test.ts"))(
  "on real books and the conformance books, lorecards activates and places what SillyTavern does",
  () => {
    let st: SillyTavern | undefined;
    let scratch = "";
    const sweeps: Sweep[] = [];
    const differences: Difference[] = [];
    /** Fields of our World Info export that SillyTavern's import did not give back as they were. */
    const lost: string[] = [];
    let exported = 0;
    let compared = 0;

    beforeAll(async () => {
      scratch = tempDir();
      const inbox = path.join(scratch, "in");
      fs.mkdirSync(inbox);
      const files = [...books];
      for (const f of conformanceFiles()) {
        if (
          f.book.real !== undefined ||
          f.book.differences ||
          !f.book.cases.every((c) => judgeOf(c, f.book) === "sillytavern")
        )
          continue;
        const source = bookSource(f, scratch);
        const named = path.join(inbox, `${f.name.replace(/\.json$/, "")}${path.extname(source)}`);
        fs.copyFileSync(source, named);
        files.push(named);
      }
      await ensureBinary();
      st = await startSillyTavern();
      const report = await st.importFiles(path.join(scratch, "st"), files);
      const questions: Question[] = [];
      for (const file of files) {
        const r = report.find((x) => x.file === file);
        if (!r?.out) throw new Error(`SillyTavern did not import ${file}: ${r?.error}`);
        const stored = JSON.parse(fs.readFileSync(r.out, "utf8")) as { entries: Record<string, StEntry> };
        const entries = new Map(Object.values(stored.entries).map((e) => [e.uid, e]));
        const vault = path.join(scratch, `vault-${sweeps.length}`);
        fs.mkdirSync(vault);
        const imported = await runBinary(["import", file, "--book", "main", "--vault", vault]);
        if (imported.code !== 0) throw new Error(`lorecards import ${file}: ${imported.stderr}`);
        // A message that names nothing: what comes in on any message (constant entries) is compared too.
        const chats: Sweep["chats"] = [{ id: `${path.basename(file)}#none`, chat: ["Hello."] }];
        const askable = [...entries.values()].filter((e) => plainKey(e) !== undefined && e.disable !== true);
        const stride = Math.ceil(askable.length / PER_BOOK);
        for (const [i, e] of askable.entries()) {
          const key = plainKey(e);
          if (key === undefined || i % stride !== 0) continue;
          const id = `${path.basename(file)}#${e.uid}`;
          chats.push(
            { id: `${id}:now`, chat: [naming(key)] },
            { id: `${id}:before`, chat: ["And then?", naming(key)] },
          );
        }
        for (const c of chats) questions.push({ id: c.id, book: r.out, depth: 2, chat: c.chat });
        sweeps.push({ book: path.basename(file), entries, chats, stBook: r.out, vault });
      }
      const answers = new Map((await st.evaluate(questions)).map((a) => [a.id, a]));
      // Round trip: each book as `lorecards export --format st` writes it, imported by SillyTavern.
      const exports: string[] = [];
      fs.mkdirSync(path.join(scratch, "exports"));
      for (const [i, s] of sweeps.entries()) {
        const out = path.join(scratch, "exports", `${i}-${s.book.replace(/\.\w+$/, "")}.json`);
        const r = await runBinary(["export", out, "--format", "st", "--vault", s.vault]);
        if (r.code !== 0) throw new Error(`lorecards export ${out}: ${r.stderr}`);
        exports.push(out);
      }
      const back = await st.importFiles(path.join(scratch, "st-back"), exports);
      for (const file of exports) {
        const given = JSON.parse(fs.readFileSync(file, "utf8")) as { entries: Record<string, StEntry> };
        const r = back.find((x) => x.file === file);
        if (!r?.out) {
          lost.push(`${path.basename(file)}: not imported (${r?.error})`);
          continue;
        }
        const stored = JSON.parse(fs.readFileSync(r.out, "utf8")) as { entries: Record<string, StEntry> };
        for (const [uid, entry] of Object.entries(given.entries)) {
          exported++;
          for (const [field, value] of Object.entries(entry)) {
            const got = stored.entries[uid]?.[field];
            if (JSON.stringify(got) !== JSON.stringify(value))
              lost.push(
                `${path.basename(file)} entry ${uid}: ${field} ${JSON.stringify(value)} came back ${JSON.stringify(got)}`,
              );
          }
        }
      }
      for (const s of sweeps) {
        const engine = await openEngine(s.vault, { segmenter: jiebaSegmenter });
        const byTitle = new Map([...s.entries.values()].map((e) => [titleOf(e), e]));
        for (const c of s.chats) {
          const turns = [...c.chat].reverse().map((text, i, all) => ({
            role: (i === all.length - 1 ? "user" : "assistant") as "user" | "assistant",
            text,
          }));
          const ours = recallJson(
            await engine.recall(turns, {
              budget: 1_000_000_000,
              reach: "named",
              seed: "sweep",
              scanDepth: 1,
            }),
          );
          const theirs = answers.get(c.id)!;
          const decided = (title: string) => {
            const e = byTitle.get(title);
            return e === undefined || !undecidable(e);
          };
          const stPlaces = new Map(
            theirs.acts.map((a) => [titleOf(s.entries.get(a.uid) ?? { uid: a.uid }), stPlace(a)] as const),
          );
          const ourPlaces = new Map(
            ours.fired
              .filter((f) => f.in_budget)
              .map((f) => {
                const p = f.placement;
                const place =
                  p.position === "at_depth" ? `${p.position}@${p.depth}/${p.role ?? "system"}` : p.position;
                return [f.title, place ?? "(the surface's place)"] as const;
              }),
          );
          compared++;
          const note = (title: string, side: "ours" | "theirs" | "place", what: string) => {
            if (!decided(title)) return;
            differences.push({
              chat: `${s.book} ${JSON.stringify(c.chat)}`,
              what,
              why: explain({ title, side, chat: c.chat }),
            });
          };
          for (const [title, place] of stPlaces) {
            if (!ourPlaces.has(title))
              note(title, "theirs", `SillyTavern activates ${JSON.stringify(title)}, lorecards does not`);
            else if (ourPlaces.get(title) !== place)
              note(
                title,
                "place",
                `${JSON.stringify(title)}: SillyTavern places it ${place}, lorecards ${ourPlaces.get(title)}`,
              );
          }
          for (const title of ourPlaces.keys())
            if (!stPlaces.has(title))
              note(title, "ours", `lorecards activates ${JSON.stringify(title)}, SillyTavern does not`);
        }
        engine.close();
      }
    }, 900_000);

    afterAll(async () => {
      await st?.stop();
      if (scratch) removeDir(scratch);
    });

    test("every conversation gives the same entries in the same places, but for the deliberate differences", () => {
      const unexplained = differences.filter((d) => d.why === undefined).map((d) => `${d.chat}: ${d.what}`);
      expect(compared).toBeGreaterThan(0);
      expect(unexplained).toEqual([]);
    });

    test("a World Info export imported by SillyTavern gives back every field it was given", () => {
      expect(exported).toBeGreaterThan(0);
      expect(lost).toEqual([]);
    });

    test("the sweep covers every real book and the conformance books", () => {
      expect(sweeps.map((s) => s.book)).toEqual(expect.arrayContaining(books.map((b) => path.basename(b))));
      expect(sweeps.every((s) => s.chats.length > 0)).toBe(true);
      expect(compared).toBe(sweeps.reduce((n, s) => n + s.chats.length, 0));
    });
  },
);
