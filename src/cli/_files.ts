/**
 * A file named on the command line, read whole: one rule for every command that takes one (import, export
 * --card, new and update --input). A file that is not there is not found (exit 3); one that cannot be
 * read, a folder, or one far too large is bad input (exit 5), each said with the file's name. And a
 * folder named to write in (export's, backup --to) must be there already, by the same rule.
 */
import fs from "node:fs";
import { describeError, LoreError } from "../errors.ts";

/** Larger inputs are refused before reading: no lorebook or card is this big, a mistaken path might be. */
const MAX_INPUT_BYTES = 512 * 1024 * 1024;

export function readInput(file: string): Uint8Array {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new LoreError("not_found", `${file}: no such file`, { cause: err });
    throw new LoreError("invalid_input", `${file}: cannot read (${describeError(err)})`, { cause: err });
  }
  if (stat.isDirectory()) throw new LoreError("invalid_input", `${file}: is a directory, not a file`);
  const size = stat.size;
  if (size > MAX_INPUT_BYTES)
    throw new LoreError("too_large", `${file}: ${size} bytes is more than any lorebook`);
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (err) {
    throw new LoreError("invalid_input", `${file}: cannot read (${describeError(err)})`, { cause: err });
  }
}

/**
 * The folder a command was told to write in must be there: said with its name, before any work. Made
 * for the user instead, a backup to a drive that is not mounted (`--to /mnt/usb/…`) would fill the
 * root disk and report success.
 */
export function existingFolder(folder: string): void {
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (stat === undefined)
    throw new LoreError(
      "not_found",
      `the folder ${folder} does not exist; make it first (mkdir -p ${folder})`,
    );
  if (!stat.isDirectory()) throw new LoreError("invalid_input", `${folder} is not a folder`);
}
