/**
 * The one rule for opening a file lorecards reads out of a folder someone else may fill (a card, the
 * vault's settings.yaml, kinds.yaml and style dictionary, the hook's transcript): only a plain file of
 * its own is read. Never through a symbolic link at the file itself (O_NOFOLLOW; a link in the folders
 * above a card is vault/_links.ts's to refuse); never a FIFO, socket, device or folder, which could
 * hang the open or the read forever or stream without end (opened with O_NONBLOCK, so even a FIFO's
 * open returns at once, then judged by fstat on the open descriptor, so nothing can be swapped in
 * between); never a file with a second name (a hard link, nlink > 1), which can be a name inside the
 * vault for a file outside it, such as ~/.ssh/id_rsa, that would then be shown and injected. Each
 * refusal says what the file is.
 */
import fs from "node:fs";
import { LoreError } from "./errors.ts";

const { O_RDONLY, O_NONBLOCK = 0, O_NOFOLLOW = 0 } = fs.constants;

export interface PlainOptions {
  /** How the refusal names the file (a vault path, a file name); the path itself by default. */
  name?: string;
  /**
   * A file with several names is refused unless allowed: a transcript a tool keeps hard-linked is
   * not the vault's, and no surface injects it whole.
   */
  allowLinks?: boolean;
}

/** What a non-plain file is, in words; undefined for a plain file. */
function kindOf(st: fs.Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSymbolicLink()) return LINK;
  return "not a plain file";
}

function refused(name: string, what: string, advice = "lorecards reads only plain files"): LoreError {
  return new LoreError("forbidden", `${name} is ${what}; ${advice}`, { data: { not: what } });
}

const LINK = "a symbolic link";
const NEVER_LINKS = "lorecards never follows links inside the vault";

/** Whether `err` is `openPlain`'s refusal of a symbolic link (a caller may name the link's target). */
export function isLinkRefusal(err: unknown): boolean {
  return err instanceof LoreError && (err.data as { not?: string } | undefined)?.not === LINK;
}

/**
 * An open descriptor of `file` when it is a plain file of its own (see the module comment). ENOENT
 * and other errors of the open are passed on as they are; a refusal is a LoreError `forbidden`.
 */
export function openPlain(file: string, options: PlainOptions = {}): number {
  const name = options.name ?? file;
  if (O_NOFOLLOW === 0 && fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink())
    throw refused(name, LINK, NEVER_LINKS);
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw refused(name, LINK, NEVER_LINKS);
    if (code === "EISDIR") throw refused(name, "a folder");
    if (code === "ENXIO") throw refused(name, "a socket or a FIFO no one writes to");
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    const what = kindOf(st);
    if (what !== undefined) throw refused(name, what);
    if (st.nlink > 1 && options.allowLinks !== true)
      throw refused(
        name,
        `a hard link (one of ${st.nlink} names of the same file, which may be outside the vault)`,
        "lorecards reads only files of their own",
      );
    return fd;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The text of `file` when it is a plain file of its own (see `openPlain`). */
export function readPlain(file: string, options: PlainOptions = {}): string {
  const fd = openPlain(file, options);
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}
