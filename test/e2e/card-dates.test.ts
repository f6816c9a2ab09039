// A Character Card V3's dates through the compiled binary (spec 7.5.7 and 7.5.8, docs/INTEROP.md): a
// V3 card is imported, its book exported back onto it with `export --card`; unchanged, both dates
// are as they were; after a card of the book is edited, `modification_date` is the time of the export
// and `creation_date` is kept, in the JSON card and in the PNG's `ccv3` chunk (its V2 `chara` backfill
// carries neither, as the spec's downgrade says).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readChunks, readText } from "../../src/interop/_png.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const SERAPHINA = path.join(REAL_FIXTURES, "st-card-Seraphina.chara.json");
const HAVE_CARD = haveRealFixture("card-dates: the real Seraphina card", "st-card-Seraphina.chara.json");
const CREATED = 1_700_000_000;
const MODIFIED = 1_700_000_500;

let dir = "";
let vault = "";
let base = "";

type Data = { creation_date?: number; modification_date?: number; character_book: { entries: unknown[] } };

beforeAll(async () => {
  if (!HAVE_CARD) return;
  await ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-card-dates-"));
  vault = path.join(dir, "vault");
  fs.mkdirSync(vault);
  // The real Seraphina card as a V3 card with its dates, as a V3 editor saves it.
  const card = JSON.parse(fs.readFileSync(SERAPHINA, "utf8"));
  card.spec = "chara_card_v3";
  card.spec_version = "3.0";
  Object.assign(card.data, { creation_date: CREATED, modification_date: MODIFIED });
  for (const e of card.data.character_book.entries) e.use_regex ??= false;
  base = path.join(dir, "seraphina-v3.json");
  fs.writeFileSync(base, JSON.stringify(card));
  const imported = await runBinary(["import", base, "--book", "main", "--vault", vault]);
  expect(imported.code).toBe(0);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function exported(format: "card-json" | "card-png", out: string) {
  const r = await runBinary(["export", out, "--format", format, "--card", base, "--vault", vault]);
  expect(r.code).toBe(0);
}

describe.skipIf(!HAVE_CARD)("a V3 card's dates on export (compiled binary)", () => {
  test("a book exported as it was imported keeps both dates", async () => {
    const out = path.join(dir, "same.json");
    await exported("card-json", out);
    const data = JSON.parse(fs.readFileSync(out, "utf8")).data as Data;
    expect(data).toMatchObject({ creation_date: CREATED, modification_date: MODIFIED });
    expect(data.character_book.entries).toHaveLength(4);
  });

  test("after a card is edited, modification_date is the export's time and creation_date is kept", async () => {
    // The entry as a person edits it in their own editor.
    const file = (fs.readdirSync(vault, { recursive: true }) as string[]).find(
      (n) => path.basename(n) === "glade.md",
    )!;
    fs.appendFileSync(path.join(vault, file), "\nThe glade's spring never freezes.\n");
    const before = Math.floor(Date.now() / 1000);
    const out = path.join(dir, "changed.json");
    await exported("card-json", out);
    const data = JSON.parse(fs.readFileSync(out, "utf8")).data as Data;
    expect(data.creation_date).toBe(CREATED);
    expect(data.modification_date).toBeGreaterThanOrEqual(before);
    expect(data.modification_date).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));

    const png = path.join(dir, "changed.png");
    await exported("card-png", png);
    const texts = new Map(
      readChunks(new Uint8Array(fs.readFileSync(png)), png)
        .map(readText)
        .filter((t) => t !== null)
        .map((t) => [t.keyword, JSON.parse(Buffer.from(t.text, "base64").toString("utf8"))]),
    );
    // Its own export's time: the same second as the JSON export's, or a later one on a slow machine.
    const v3 = texts.get("ccv3").data as Data;
    expect(v3.creation_date).toBe(CREATED);
    expect(v3.modification_date).toBeGreaterThanOrEqual(data.modification_date!);
    expect(v3.modification_date).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(texts.get("chara").data.creation_date).toBeUndefined();
    expect(texts.get("chara").data.modification_date).toBeUndefined();
  });
});
