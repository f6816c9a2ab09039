/**
 * How far a long pass over a large vault has come (`check`, `check --reindex`, `restore-backup`): one
 * line on stderr, rewritten in place, and only when stderr is a terminal, so scripts and logs see
 * nothing of it. It is redrawn at most a few times a second and cleared when the pass ends.
 */
import { isatty } from "node:tty";
import { writeAll } from "./_out.ts";

export interface Progress {
  /** `done` of `total` so far. */
  (done: number, total: number): void;
  /** Clear the line. */
  end(): void;
}

const REDRAW_MS = 200;

export function terminalProgress(label: string, fd = 2): Progress | undefined {
  if (!isatty(fd)) return undefined;
  let last = 0;
  let shown = false;
  const say = (text: string) => {
    try {
      writeAll(fd, text);
    } catch {
      // the terminal went away: the pass goes on without it
    }
  };
  const progress = ((done: number, total: number) => {
    const now = performance.now();
    if (now - last < REDRAW_MS && done < total) return;
    last = now;
    shown = true;
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    say(`\r${label}: ${done.toLocaleString("en")} of ${total.toLocaleString("en")} (${percent}%)\x1b[K`);
  }) as Progress;
  progress.end = () => {
    if (shown) say("\r\x1b[K");
  };
  return progress;
}
