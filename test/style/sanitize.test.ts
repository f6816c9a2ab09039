// The one piece of text kept: at most 60 characters, whitespace collapsed, no secret or contact detail.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { EXAMPLE_MAX, excerpt, holdsSecret, SCRUB_MAX, sanitize, scrub } from "../../src/sanitize.ts";

describe("scrub drops what looks like a secret or a way to reach someone", () => {
  test.each([
    ["an API key", "use sk-proj-Ab12Cd34Ef56Gh78 now", "use … now"],
    ["a GitHub token", "ghp_0123456789abcdefABCDEF0123456789abcd here", "… here"],
    ["an AWS key", "AKIAIOSFODNN7EXAMPLE is mine", "… is mine"],
    ["a JWT", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "…"],
    ["a named password", "my password: hunter2 ok", "my … ok"],
    ["a named password in Chinese", "密码是abc123 记一下", "… 记一下"],
    ["an e-mail address", "write to ann.lee@example.com please", "write to … please"],
    ["a link", "see https://example.com/x?token=1 ok", "see … ok"],
    ["a phone number with spaces", "call +1 415 555 0199 later", "call … later"],
    ["a phone number with brackets", "call (415) 555-0199", "call (…"],
    ["a Chinese mobile number", "打13800138000找我", "打…找我"],
    ["an IP address", "ssh to 10.0.0.12 now", "ssh to … now"],
    ["a long mixed run", "id Zx9Qw8Er7Ty6Ui5Op4 done", "id … done"],
    ["a PEM block", "-----BEGIN PRIVATE KEY----- MIIE abc -----END PRIVATE KEY----- ok", "… ok"],
    ["a password named only as pw", "pw hunter2PRIVpass ok", "… ok"],
    ["a password with nothing to name it", "it is hunter2PRIVpass ok", "it is … ok"],
    ["a password of letters around digits", "try hunter2pass again", "try … again"],
    ["a password with symbols", "use Tr0ub4dor&3 there", "use … there"],
    [
      "a name and a year stay",
      "O'Brien-Smith came in 2024, COVID-19 or not.",
      "O'Brien-Smith came in 2024, COVID-19 or not.",
    ],
    ["whitespace is collapsed", "a \n\t b   c", "a b c"],
    ["ordinary words stay", "internationalization is hard lol", "internationalization is hard lol"],
    ["short numbers stay", "3 cats and 2024 plans", "3 cats and 2024 plans"],
  ])("%s", (_name, text, expected) => {
    expect(scrub(text)).toBe(expected);
  });

  test("holdsSecret is true only when something would be dropped", () => {
    expect(holdsSecret("no cap  fr")).toBe(false);
    expect(holdsSecret("wait…")).toBe(false);
    expect(holdsSecret("ping me at a@b.co")).toBe(true);
  });
});

describe("the one excerpt of a message", () => {
  test("is its start, at a word edge, within the cap", () => {
    const text = `${"before ".repeat(20)}no cap this is it${" after".repeat(20)}`;
    const ex = excerpt(text)!;
    expect(ex.length).toBeLessThanOrEqual(EXAMPLE_MAX);
    expect(ex).toBe("before ".repeat(8).trim());
  });

  test("never splits a surrogate pair", () => {
    const ex = excerpt("😭".repeat(100))!;
    expect(ex.length).toBeLessThanOrEqual(EXAMPLE_MAX);
    expect(ex).toBe("😭".repeat(30));
  });

  test("is nothing when nothing is left", () => {
    expect(excerpt("sk-abcdefghijklmnopqrstuvwx")).toBeUndefined();
    expect(sanitize("   ")).toBeUndefined();
  });

  test("reads only the start of a long message, and keeps no half of a key cut there", () => {
    const key = "Zx9Qw8Er7Ty6Ui5Op4As".repeat(100);
    expect(excerpt(`${"ok ".repeat(300)}${key}`, 10_000)).toBe("ok ".repeat(300).trim());
  });

  test("scrub reads at most SCRUB_MAX units, cut at a word edge; the secret check vouches for no more", () => {
    const words = "plain words ".repeat(SCRUB_MAX);
    expect(scrub(words).length).toBeLessThanOrEqual(SCRUB_MAX);
    expect(scrub(words).endsWith("words")).toBe(true);
    expect(holdsSecret("ok ".repeat(SCRUB_MAX))).toBe(true);
  });
});

// Fill text that cannot itself look like a secret: words, CJK, emoji, with assorted separators.
const WORDS = [
  "ok",
  "so",
  "the",
  "build",
  "tomorrow",
  "lol",
  "no cap",
  "好的",
  "我觉得",
  "巴适",
  "😭",
  "✨",
  "maybe",
];
const fill = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(" ", "", "\n", "\t", "，", "。", "  ")), {
    maxLength: 40,
  })
  .map((parts) => parts.map(([w, s]) => w + s).join(""));
const alnum = (min: number, max: number) =>
  fc
    .stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`))
    .filter((s) => /\d/.test(s) && /[A-Za-z]/.test(s));
const secret = fc.oneof(
  alnum(20, 40).map((s) => `sk-${s}`),
  alnum(30, 40).map((s) => `sk-ant-api03-${s}`),
  alnum(36, 36).map((s) => `ghp_${s}`),
  fc.stringMatching(/^[A-Z0-9]{16}$/).map((s) => `AKIA${s}`),
  alnum(35, 35).map((s) => `AIza${s}`),
  fc.tuple(alnum(10, 30), alnum(10, 30), alnum(10, 30)).map(([a, b, c]) => `eyJ${a}.${b}.${c}`),
  fc.stringMatching(/^[0-9a-f]{32,64}$/).filter((s) => /[a-f]/.test(s)),
  alnum(24, 48),
  fc.tuple(alnum(3, 12), alnum(3, 10)).map(([a, b]) => `${a}@${b}.com`),
  fc
    .tuple(
      alnum(8, 16),
      fc.constantFrom("password: ", "password ", "pwd=", "token: ", "api_key=", "密码是", "密码："),
    )
    .map(([v, k]) => `${k}${v}`),
);
const phone = fc.oneof(
  fc.stringMatching(/^1[3-9]\d{9}$/),
  fc.stringMatching(/^\+1 \d{3} \d{3} \d{4}$/),
  fc.stringMatching(/^\(\d{3}\) \d{3}-\d{4}$/),
  fc.stringMatching(/^\+86-1\d{2}-\d{4}-\d{4}$/),
  fc.stringMatching(/^0\d{2} \d{4} \d{4}$/),
);
const sep = fc.constantFrom(" ", "\n", "", "，", ": ");

/** The parts of a planted secret that must not survive: every 8-character window of it. */
function windows(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 8 <= text.length; i++) out.push(text.slice(i, i + 8));
  return out;
}

describe("no planted secret survives (property)", () => {
  test("in a sanitized text", () => {
    fc.assert(
      fc.property(fill, sep, secret, sep, fill, (before, s1, planted, s2, after) => {
        const out = sanitize(`${before}${s1}${planted}${s2}${after}`) ?? "";
        expect(out.length).toBeLessThanOrEqual(EXAMPLE_MAX);
        expect(out).not.toMatch(/\s\s|\n|\t/);
        const value = planted.replace(/^(?:password: |password |pwd=|token: |api_key=|密码是|密码：)/, "");
        for (const w of windows(value)) expect(out).not.toContain(w);
      }),
      { numRuns: 400 },
    );
  });

  test("an excerpt scrubbed again is the same excerpt (the hit log normalises on write and on read)", () => {
    fc.assert(
      fc.property(fill, sep, secret, sep, fill, (before, s1, planted, s2, after) => {
        const once = excerpt(`${before}${s1}${planted}${s2}${after}`);
        if (once !== undefined) expect(excerpt(once)).toBe(once);
      }),
      { numRuns: 400 },
    );
  });

  test("no phone number keeps seven of its digits", () => {
    fc.assert(
      fc.property(fill, sep, phone, sep, fill, (before, s1, planted, s2, after) => {
        const out = sanitize(`${before}${s1}${planted}${s2}${after}`, 10_000) ?? "";
        // The fill has no digits: any digit left came from the number.
        expect(out.replace(/\D/g, "").length).toBeLessThan(7);
      }),
      { numRuns: 400 },
    );
  });
});
