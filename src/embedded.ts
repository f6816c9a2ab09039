/**
 * Whether a path is in a compiled binary's embedded file system (Bun's single-file executables) rather
 * than on disk: `Bun.main` there is `/$bunfs/root/…`, or `B:\~BUN\root\…` on Windows.
 */
const EMBEDDED = /^(?:\/\$bunfs\/|[A-Za-z]:[\\/]~BUN[\\/])/;

export function isEmbedded(path: string): boolean {
  return EMBEDDED.test(path);
}
