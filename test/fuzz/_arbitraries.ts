/**
 * Structured inputs for the fuzz suites: strings that break parsers (path escapes, device names, BOMs,
 * CRLF, lone surrogates, headings, frontmatter fences, huge runs), JSON values of the wrong type at any
 * depth, and mutations of a real JSON document at random paths. Random bytes alone rarely get past the
 * first `JSON.parse`; these reach the code behind it.
 */
import fc from "fast-check";

/** Strings every name, path and text field should survive. */
export const SPECIALS = [
  "",
  " ",
  ".",
  "..",
  "../x",
  "../../../../escape",
  "..\\..\\escape",
  "/etc/passwd",
  "C:\\Windows",
  "a/b",
  "con",
  "CON.md",
  "nul.txt",
  "LPT1",
  "name.",
  "name ",
  ".hidden",
  "\u0000",
  "a\u0000b",
  "\uFEFF",
  "\uFEFF---",
  "\r\n",
  "\r",
  "---",
  "----",
  "---js",
  "## who",
  "## correspondence",
  "\n## recent\n",
  "<!-- lorecards:000000000000 -->",
  "💥",
  "小林",
  "\u202Eevil",
  "e\u0301",
  "\uD800",
  "\uDC00x",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "%2e%2e%2f",
  "%E0%A4%A",
  "*",
  "&a",
  "!!binary",
  "yes",
  "no",
  "null",
  "~",
  "0x10",
  "1e999",
  "-0",
  "NaN",
  "[unclosed",
  "{a: 1",
  '"',
  "'",
  "`",
  "\t",
  "Alice",
  "friday deploy",
  "the corner cafe",
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const control = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));

/** A short string from one of several alphabets. */
export const shortString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), loneSurrogate, control),
    }),
  },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIALS) },
);

/** A string long enough to cost something: a piece repeated thousands of times. */
export const hugeString = fc
  .tuple(
    fc.constantFrom("a", "é", "小", "💥", "\n", "a ", "## x\n", "Alice ", "\r\n"),
    fc.integer({ min: 2_000, max: 20_000 }),
  )
  .map(([piece, n]) => piece.repeat(n));

/** Any string: mostly short, built from pieces, sometimes huge. */
export const anyString = fc.oneof(
  { weight: 6, arbitrary: shortString },
  { weight: 3, arbitrary: fc.array(shortString, { maxLength: 6 }).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: hugeString },
);

/** Object keys: the fields lorecards knows, the ones it reserves, and anything else. */
export function keyFrom(known: readonly string[]): fc.Arbitrary<string> {
  if (known.length === 0) return shortString;
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: shortString });
}

const scalar = fc.oneof(
  anyString,
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 1e300, -1e-300, Number.MAX_SAFE_INTEGER + 2, 2 ** 53),
  fc.boolean(),
  fc.constant(null),
);

/** A value nested `depth` levels deep (arrays and objects in turn, or arrays only), a string at the bottom. */
export function nested(depth: number, only?: "arrays"): unknown {
  let v: unknown = "alice";
  for (let i = 0; i < depth; i++) v = i % 2 === 0 || only === "arrays" ? [v] : { k: v };
  return v;
}

/** Deep: the vault writes it; the API and the importer refuse what nests past 64 levels (json-depth.ts). */
export const deepValue = fc.integer({ min: 20, max: 200 }).map((d) => nested(d));

/** A JSON value of any type at any depth (depth bounded), with keys drawn from `known`. */
export function jsonValue(known: readonly string[] = [], maxDepth = 4): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth, withCrossShrink: true },
      { weight: 50, arbitrary: scalar },
      { weight: 1, arbitrary: deepValue },
      { weight: 10, arbitrary: fc.array(tie("value"), { maxLength: 5 }) },
      {
        weight: 10,
        arbitrary: fc.dictionary(keyFrom(known.length > 0 ? known : SPECIALS), tie("value"), { maxKeys: 6 }),
      },
    ),
  }));
  return value;
}

/** A JSON object whose values have the right type for each known field, or the wrong one. */
export function shapedObject(
  fields: Record<string, fc.Arbitrary<unknown>>,
  known: readonly string[] = Object.keys(fields),
): fc.Arbitrary<Record<string, unknown>> {
  const typed = Object.fromEntries(
    Object.entries(fields).map(([k, right]) => [
      k,
      fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: jsonValue(known, 2) }),
    ]),
  );
  return fc
    .tuple(
      fc.record(typed, { requiredKeys: [] }),
      fc.dictionary(keyFrom(known), jsonValue(known, 2), { maxKeys: 2 }),
    )
    .map(([a, b]) => ({ ...b, ...a }));
}

/** Every path to a value inside a JSON document, root first. */
function paths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...at, i], out);
  } else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function setAt(root: unknown, at: (string | number)[], replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const step of at.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[at[at.length - 1]!] = replacement;
  return copy;
}

/** A document with a few values (anywhere, at any depth) replaced by values of any type, or removed. */
export function mutatedJson(doc: unknown, known: readonly string[] = []): fc.Arbitrary<unknown> {
  const all = paths(doc);
  const edit = fc.tuple(fc.nat(), fc.option(jsonValue(known, 3), { nil: undefined, freq: 6 }));
  return fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let out = doc;
    for (const [n, replacement] of edits) {
      // Paths of the original stay valid while earlier edits only replaced leaves or whole subtrees.
      const at = all[n % all.length]!;
      try {
        out = setAt(out, at, replacement);
      } catch {
        // the path went away with an earlier edit: skip
      }
    }
    return out;
  });
}

/** Byte-level mutations of a file: flips, truncation, splices, repeats. */
export function mutatedBytes(base: Uint8Array): fc.Arbitrary<Uint8Array> {
  const flip = fc
    .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
    .map((flips) => {
      const out = base.slice();
      for (const [at, b] of flips) out[at % out.length] = b;
      return out;
    });
  const truncate = fc.nat().map((n) => base.slice(0, n % base.length));
  const splice = fc
    .tuple(fc.nat(), fc.uint8Array({ maxLength: 64 }), fc.nat({ max: 64 }))
    .map(([at, ins, del]) => {
      const i = at % base.length;
      const out = new Uint8Array(base.length - Math.min(del, base.length - i) + ins.length);
      out.set(base.subarray(0, i), 0);
      out.set(ins, i);
      out.set(base.subarray(i + Math.min(del, base.length - i)), i + ins.length);
      return out;
    });
  const repeat = fc.tuple(fc.nat(), fc.nat({ max: 512 })).map(([at, len]) => {
    const i = at % base.length;
    const part = base.subarray(i, i + len);
    const out = new Uint8Array(base.length + part.length);
    out.set(base.subarray(0, i + part.length), 0);
    out.set(part, i + part.length);
    out.set(base.subarray(i + part.length), i + 2 * part.length);
    return out;
  });
  return fc.oneof(flip, truncate, splice, repeat);
}

/** `arb` one time in `n`, otherwise undefined (fc.option's `freq` is the other way round). */
export function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}
