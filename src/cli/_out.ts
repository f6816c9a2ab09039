/**
 * How the CLI writes. A command's result goes to fd 1 with synchronous writes: the first touch of
 * `process.stdout` builds a Node stream when stdout is a pipe, about 5 ms and 6 MB of every cold
 * `try --json` or `--version` (bench/README.md, "Start-up"). The few writers that do use the stream
 * (help, an error under --json, the MCP SDK on stdio) take it from `stdoutStream()`. node:fs is
 * required on the first write, not imported: loading it costs about 1 ms, which `--version` skips.
 */
import type * as Fs from "node:fs";

/**
 * All of `text` to `fd`. A pipe whose reader set it non-blocking answers EAGAIN when full: wait a
 * millisecond and go on. Any other error (EPIPE: the reader left) is thrown.
 */
export function writeAll(fd: number, text: string): void {
  const { writeSync } = require("node:fs") as typeof Fs;
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) {
    try {
      done += writeSync(fd, bytes, done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Bun.sleepSync(1);
    }
  }
}

/**
 * `lorecards list --json | head -1`: the reader may leave before we finish writing. That is the
 * reader's choice, not our failure: stop quietly (exit 0) instead of printing a broken-pipe trace.
 */
export function quietOnEpipe(err: unknown): never {
  if ((err as NodeJS.ErrnoException).code === "EPIPE") process.exit(0);
  throw err;
}

/** A command's output on stdout. */
export function writeStdout(text: string): void {
  try {
    writeAll(1, text);
  } catch (err) {
    quietOnEpipe(err);
  }
}

let guarded = false;

/** `process.stdout`, which ends the process quietly when its reader goes away, as above. */
export function stdoutStream(): NodeJS.WriteStream {
  if (!guarded) {
    guarded = true;
    process.stdout.on("error", quietOnEpipe);
  }
  return process.stdout;
}
