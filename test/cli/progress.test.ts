// The progress line of a long pass over a vault (check, check --reindex, restore-backup): on a terminal
// it says how far the pass has come; a pipe (a script, a log) gets none of it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");

/** The command run with a terminal (util-linux `script` gives it one) and what the terminal showed. */
function onTerminal(args: string[]): string {
  const command = [process.execPath, MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const proc = Bun.spawnSync(["script", "-qec", command, "/dev/null"], { stdout: "pipe", stderr: "pipe" });
  expect(proc.exitCode).toBe(0);
  return proc.stdout.toString();
}

function piped(args: string[]): { stdout: string; stderr: string } {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe" });
  expect(proc.exitCode).toBe(0);
  return { stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

let vault: TempVault;
let work: string;
beforeAll(() => {
  vault = tempVault({
    "people/Alice.md": cardText("keywords: [Alice]", "## who\nAlice runs payments.\n"),
    "people/Bob.md": cardText("keywords: [Bob]", "## who\nBob keeps the books.\n"),
    "places/Harbor.md": cardText("keywords: [harbor]", "## where\nThe old harbor.\n"),
  });
  work = mkdtempSync(join(tmpdir(), "lc-progress-"));
});
afterAll(() => {
  vault.remove();
  rmSync(work, { recursive: true, force: true });
});

describe("a long pass says how far it has come on a terminal, and nothing into a pipe", () => {
  test("check", () => {
    expect(onTerminal(["check", "--vault", vault.root])).toContain("checking cards: 3 of 3 (100%)");
    expect(piped(["check", "--vault", vault.root]).stderr).toBe("");
  });

  test("check --reindex", () => {
    expect(onTerminal(["check", "--reindex", "--vault", vault.root])).toContain(
      "comparing card files: 3 of 3 (100%)",
    );
    expect(piped(["check", "--reindex", "--vault", vault.root]).stderr).toBe("");
  });

  test("restore-backup", () => {
    piped(["backup", "--to", work, "--vault", vault.root]);
    const backup = join(work, readdirSync(work).find((f) => f.endsWith(".tar.gz"))!);
    const shown = onTerminal(["restore-backup", backup, "--to", join(work, "on-terminal")]);
    expect(shown).toMatch(/restoring files: \d+ of \d+ \(100%\)/);
    expect(piped(["restore-backup", backup, "--to", join(work, "piped")]).stderr).toBe("");
  });
});
