/**
 * What the CLI's card writers (`new`, `update`) share: text from a file or from stdin (`--input FILE`,
 * or `--input -`, as `style` takes its submissions, read as _files.ts reads any file named), the check that a section's text starts no section of its own, and the write checks' warnings
 * as lines.
 */
import { LoreError } from "../errors.ts";
import type { WriteWarning } from "../vet/index.ts";
import { readInput } from "./_files.ts";

export async function inputText(file: string): Promise<string> {
  return file === "-" ? Bun.stdin.text() : new TextDecoder().decode(readInput(file));
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
