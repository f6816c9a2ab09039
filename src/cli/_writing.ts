/**
 * What the CLI's card writers (`new`, `update`) share: text from a file or from stdin (`--input FILE`,
 * or `--input -`, as `style` takes its submissions; an unreadable file is bad input, exit 5, naming
 * it), the check that a section's text starts no section of its own, and the write checks' warnings
 * as lines.
 */
import { readFileSync } from "node:fs";
import { LoreError } from "../errors.ts";
import type { WriteWarning } from "../vet/index.ts";

export async function inputText(file: string): Promise<string> {
  if (file === "-") return Bun.stdin.text();
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new LoreError("invalid_input", `cannot read ${file}: ${why}`, { cause: err });
  }
}

/** A section's text may hold anything but a line that starts a section of its own. */
export function refuseHeadingIn(text: string, section: string): void {
  if (/^## /m.test(text))
    throw new LoreError("invalid_input", `the text of section "${section}" holds a "## " heading of its own`);
}

/** The write checks' warnings, one line each. */
export function warningLines(warnings: readonly WriteWarning[]): string[] {
  return warnings.map((w) => `  warning ${w.code}: ${w.detail}`);
}
