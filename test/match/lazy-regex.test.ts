// re2js is evaluated only by a vault that has regular-expression keys: a cold hook on a plain vault
// must not pay for it. Checked in a fresh process, where the module cache shows what was loaded.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

async function re2Loaded(files: Record<string, string>): Promise<boolean> {
  vault = tempVault(files);
  const script = `
    import { injectedKeys, openEngine } from ${JSON.stringify(join(import.meta.dir, "../../src/recall/index.ts"))};
    const engine = await openEngine(${JSON.stringify(vault.root)}, { segmenter: false });
    const r = await engine.recall([{ role: "user", text: "Ann met the harbour master" }]);
    const loaded = Object.keys(require.cache).some((k) => k.includes("re2js"));
    console.log(JSON.stringify({ loaded, injected: injectedKeys(r) }));`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  const got = JSON.parse(out) as { loaded: boolean; injected: string[] };
  expect(got.injected).toContain("Ann");
  return got.loaded;
}

test.each([
  ["a vault of plain keywords never loads re2js", false, {}],
  [
    "a vault with one /pattern/ key loads it",
    true,
    { "places/Harbour.md": cardText("keywords: ['/harbou?r\\s+master/i']", "The harbour.\n") },
  ],
])("%s", async (_name, expected, extra) => {
  const files = { "people/Ann.md": cardText("keywords: [Ann]", "Ann.\n"), ...extra };
  expect(await re2Loaded(files)).toBe(expected);
});
