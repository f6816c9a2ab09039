// docs/ARCHITECTURE.md names files to follow a request through: every one it names exists, so the map
// cannot point at a file that moved or went away. A name is a path in backticks ending in .ts: under
// src/ unless it starts with test/ or bench/; a bare file name (`defaults.ts`) is one of src/ or of the
// repository (`build.ts`), or one next to the file named before it on the same line (`_st.ts` after
// `interop/_world-book.ts`).
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");
const DOC = fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8");

/** Every `….ts` the page names, as the paths from the repository's root it may be (any one will do). */
function namedFiles(text: string): string[][] {
  const out: string[][] = [];
  for (const line of text.split("\n")) {
    let folder = "";
    for (const [, name] of line.matchAll(/`([\w./<>-]+\.ts)`/g)) {
      if (name!.includes("<")) continue; // a pattern such as src/gateway/<name>.ts
      if (name!.includes("/")) {
        const rel = /^(src|test|bench)\//.test(name!) ? name! : `src/${name}`;
        folder = path.dirname(rel);
        out.push([rel]);
      } else out.push([`src/${name}`, name!, ...(folder === "" ? [] : [`${folder}/${name}`])]);
    }
  }
  return out;
}

describe("docs/ARCHITECTURE.md", () => {
  const files = namedFiles(DOC);

  test("names the files a reader follows", () => {
    expect(files.length).toBeGreaterThan(30);
  });

  test("every file it names exists", () => {
    const missing = files.filter((ways) => !ways.some((f) => fs.existsSync(path.join(ROOT, f))));
    expect(missing.map((ways) => ways.join(" or "))).toEqual([]);
  });
});
