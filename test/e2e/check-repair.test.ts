// `check` and `repair` as a user meets them after upgrading: the compiled binary finds the cards an
// older release imported with SillyTavern's selectiveLogic 1 and 3 swapped, `repair --dry-run` lists
// them and writes nothing, `repair` fixes them, and `check` is then quiet about them. The same check
// names a {{char}} macro with no name and a settings.yaml key it ignored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type TempVault, tempVault, vaultFiles } from "../support/card-vault.ts";

/** As the old import wrote an AND ALL entry (selectiveLogic 3): its words became `not`, the 3 kept under st:. */
const AND_ALL_OLD = `---
kind: entry
title: Lantern
keywords:
  - lantern
secondary:
  not:
    - green
    - glass
priority: 5
enabled: true
st:
  uid: 1
  selectiveLogic: 3
---
A green glass lantern.
`;

let vault: TempVault;

beforeAll(async () => {
  await ensureBinary();
  vault = tempVault({
    "Lantern.md": AND_ALL_OLD,
    "people/Seraphina.md": "---\nkeywords: [Seraphina]\n---\n## who\n{{char}} guards the glade.\n",
    "settings.yaml": "user: Ann\ngeneric_keywords: [the]\n",
  });
});
afterAll(() => vault.remove());

type Finding = { code: string; card: string; detail: string };

async function findings(): Promise<Finding[]> {
  const r = await runBinary(["check", "--vault", vault.root, "--json"]);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
}

describe("check and repair after an upgrade", () => {
  test("check names the old import, the macro with no name and the ignored setting", async () => {
    const codes = (await findings()).map((f) => `${f.code} ${f.card}`);
    expect(codes).toContain("old_import entry/Lantern");
    expect(codes).toContain("unnamed_macro people/Seraphina");
    expect(codes).toContain("bad_setting settings.yaml");
  });

  test("--char on check names the character, so the macro is no longer reported", async () => {
    const r = await runBinary(["check", "--vault", vault.root, "--json", "--char", "Seraphina"]);
    const codes = (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map((f) => f.code);
    expect(codes).not.toContain("unnamed_macro");
  });

  test("repair --dry-run lists the card and changes no file", async () => {
    const before = vaultFiles(vault.root);
    const r = await runBinary(["repair", "--vault", vault.root, "--dry-run", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { cards: { path: string }[] };
    expect(out.cards.map((c) => c.path)).toEqual(["Lantern.md"]);
    expect(vaultFiles(vault.root)).toEqual(before);
  });

  test("repair turns the swapped words back into AND ALL, and check no longer reports it", async () => {
    const r = await runBinary(["repair", "--vault", vault.root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Lantern.md");
    const card = await runBinary(["read", "Lantern", "--vault", vault.root, "--json"]);
    expect(JSON.parse(card.stdout).frontmatter).toMatchObject({
      title: "Lantern",
      keywords: ["lantern"],
      secondary: { all: ["green", "glass"] },
    });
    expect((await findings()).map((f) => f.code)).not.toContain("old_import");
    const fired = await runBinary(["try", "the green glass lantern", "--vault", vault.root, "--json"]);
    expect(JSON.parse(fired.stdout).injected).toEqual(["Lantern"]);
  });
});
