/**
 * How long a process works without letting anything else run, in CPU time of its main thread (the
 * one that runs JavaScript and answers requests): a 1 ms timer ticks once per turn of the event loop
 * at most, and the CPU time the thread spent between two ticks is about the longest a request that
 * just arrived waits for the work under way. The main thread's time, not the process's: the garbage
 * collector's helpers and Bun's I/O threads work beside it without holding anything up. CPU time, not
 * wall-clock time, so a machine busy with other work does not stretch the measure.
 *
 * A loaded machine still makes each instruction dearer (two cores shared, caches thrashed), so a bound
 * is put in units measured beside it: `passCost`, what one read and write of the largest chat body
 * the gateway takes on costs the same thread at the same time.
 */

import { BODY_LIMITS } from "../../src/gateway/_body.ts";

export interface StretchWatch {
  /** The longest stretch so far, in ms of CPU. */
  longest(): number;
  stop(): number;
}

/** CPU milliseconds the main thread has spent so far. */
function threadCpu(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** Watches this process; `report` hears each stretch over 5 ms (a process that says so on stderr). */
export function watchStretches(report?: (ms: number) => void): StretchWatch {
  let longest = 0;
  let last = threadCpu();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const ms = threadCpu() - last;
    longest = Math.max(longest, ms);
    if (ms > 5) report?.(ms);
    last = threadCpu();
    // A timer, not setImmediate: an idle process then sleeps between ticks instead of spinning.
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    longest: () => longest,
    stop() {
      clearTimeout(timer);
      return longest;
    },
  };
}

/**
 * An ordinary chat body as large as the gateway reads (BODY_LIMITS.maxBytes): a history of plain
 * messages. Made on first use.
 */
let passBody: string | undefined;
function largestBody(): string {
  const message = "plain words about the week, nothing special. ".repeat(230);
  const count = Math.floor(BODY_LIMITS.maxBytes / (message.length + 40));
  passBody ??= JSON.stringify({
    model: "gpt-test",
    messages: Array.from({ length: count }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: message,
    })),
  });
  return passBody;
}

/**
 * The main thread's CPU milliseconds for one pass over the largest chat body the gateway reads
 * (parse it, write it back: what any gateway does with a body it rewrites), measured now, the average
 * of four (the thread's CPU clock moves in steps of up to a scheduler tick).
 */
export function passCost(): number {
  const body = largestBody();
  const rounds = 4;
  const start = threadCpu();
  for (let round = 0; round < rounds; round++) JSON.stringify(JSON.parse(body));
  return (threadCpu() - start) / rounds;
}
