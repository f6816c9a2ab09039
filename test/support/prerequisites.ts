/**
 * What a test file needs from outside the repository: the real files from the field in
 * `../shared/fixtures/real/` (lorebooks, character cards, recorded client traffic; never copied into
 * the repository) and the real clients installed from npm. When one is absent the tests that need it
 * skip, with one line on stderr, on a developer's machine; under `CI=true` its absence fails the run
 * instead, since CI has every prerequisite and a silent skip there would hide tests that stopped running.
 */
import fs from "node:fs";
import path from "node:path";

/** `../shared/fixtures/real`, resolved from the repository's root. */
export const REAL_FIXTURES = path.resolve(import.meta.dir, "../../../shared/fixtures/real");

/** `CI=true` (or any value but empty, `0` and `false`), as CI sets it. */
export function inCI(): boolean {
  const ci = (process.env.CI ?? "").toLowerCase();
  return ci !== "" && ci !== "0" && ci !== "false";
}

/**
 * `present`, passed through. When it is false: under CI this throws (`who` fails, naming what is
 * missing); elsewhere it says on stderr that `who` skips.
 */
export function prerequisite(present: boolean, who: string, missing: string): boolean {
  if (present) return true;
  if (inCI()) throw new Error(`${who}: ${missing}; under CI=true that fails instead of skipping`);
  console.warn(`${who}: skipped, ${missing}`);
  return false;
}

/** Whether `rel` (a file or folder inside `../shared/fixtures/real/`) is there, as `prerequisite` says. */
export function haveRealFixture(who: string, rel: string): boolean {
  const where = path.join(REAL_FIXTURES, rel);
  return prerequisite(fs.existsSync(where), who, `${where} is absent (shared/ lives beside the repository)`);
}
