// Every path a person's text takes (scrubbing, the hit log's excerpt, typed-text cleanup, candidates,
// style memory's reading, block stripping, folding, recall itself) stays linear in a long run of one
// character class: people paste hashes, base64, minified code and logs. Each path's time on a run
// 16 times longer may grow about 16 times (linear) or not at all (bounded before it runs), never 256
// (quadratic); the limit is 64, and the two sizes are measured in the same run, so no wall-clock
// bound is involved.
import { afterAll, beforeAll, describe, test } from "bun:test";
import fc from "fast-check";
import { markersFromSecret, stripBlocks } from "../../src/inject/index.ts";
import { findCandidates } from "../../src/match/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { typedText } from "../../src/recall/typed-text.ts";
import { excerpt, holdsSecret, scrub } from "../../src/sanitize.ts";
import { builtInReader } from "../../src/style/built-in.ts";
import { readMessage } from "../../src/style/sightings.ts";
import { growth, linearLimit, runOf } from "../support/growth.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { announce, fuzz, timeoutFor } from "./_support.ts";

announce("text");

/** One unit per character class, repeated into a long run (each broke some pattern once). */
const RUNS: Record<string, string> = {
  hex: "0123456789abcdef",
  base64: "Ab9+/=Zq",
  digits: "0123456789",
  "lower-case letters": "abcdefghij",
  capitals: "ABCDEFGHIJ",
  "word characters": "a_b",
  dots: ".",
  dashes: "-",
  "at signs": "@",
  colons: ":",
  slashes: "/",
  "a scheme without a link": "h.",
  "a JWT start": "eyJ-",
  "a credential's name": "password",
  "a key mixing classes": "a1.b2-c3@",
  "an unclosed wrapper tag": "<system-reminder>",
  backticks: "`a",
  "quote marks": ">",
  Han: "密码是我",
  emoji: "😭",
  "combining marks": "e\u0301",
  "capitalised words with commas": "Xy, ",
  "line breaks": "\n",
};

/** Different capitalised names, each a candidate of its own. */
function names(size: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const name = `Q${i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + Number.parseInt(d, 26)))} and `;
    out.push(name);
    length += name.length;
  }
  return out.join("").slice(0, size);
}

// Above every bound a path has (scrub reads 4,000 characters, candidates 4,000), so both sizes pay it.
const N = 5000;
const FACTOR = 16;
const markers = markersFromSecret("0123456789abcdef0123456789abcdef");
const reader = builtInReader();

let vault: string;
let engine: Engine;
beforeAll(async () => {
  vault = makeVault();
  engine = await openEngine(vault, { watch: false, segmenter: false });
});
afterAll(() => {
  engine.close();
  removeDir(vault);
});

const PATHS: Record<string, (text: string) => unknown> = {
  scrub: (t) => scrub(t),
  "the one excerpt": (t) => excerpt(t),
  "the secret check": (t) => holdsSecret(t),
  "typed-text cleanup": (t) => typedText(t),
  candidates: (t) => findCandidates(t, { covered: () => false, extendsTitle: () => false }),
  "style memory's reading": (t) => readMessage(t, reader),
  "block stripping": (t) => stripBlocks(t, markers),
  recall: (t) => engine.recall([{ role: "user", text: `Alice ${t}` }], { candidates: true }),
};

async function expectLinear(unit: string | ((size: number) => string)): Promise<void> {
  const make = typeof unit === "string" ? (size: number) => runOf(unit, size) : unit;
  for (const [name, run] of Object.entries(PATHS)) {
    const g = await growth(run, make, N, FACTOR);
    if (g.ratio >= linearLimit(FACTOR)) {
      throw new Error(
        `${name} on ${JSON.stringify(make(40))}…: ${FACTOR}× the text took ${g.ratio.toFixed(1)}× the time ` +
          `(${g.small.toFixed(3)} → ${g.big.toFixed(3)} ms)`,
      );
    }
  }
}

describe("every text path is linear in a long run of one character class", () => {
  test.each(Object.entries(RUNS))(
    "%s",
    async (_name, unit) => {
      await expectLinear(unit);
    },
    120_000,
  );

  test("different capitalised names, each a candidate", async () => {
    await expectLinear(names);
  }, 120_000);

  const budget = { runs: 12, ms: 20_000 };
  test(
    "runs of random characters from a random class",
    async () => {
      const unit = fc.oneof(
        fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF+/=_-.@:"), minLength: 1, maxLength: 6 }),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }),
        fc.string({ unit: "binary", minLength: 1, maxLength: 4 }),
      );
      await fuzz("text: random runs", fc.asyncProperty(unit, expectLinear), budget);
    },
    timeoutFor(budget),
  );
});
