/**
 * How long a process works without letting anything else run, in CPU time: a 1 ms timer ticks once
 * per turn of the event loop at most, and the CPU time spent between two ticks is about the longest a
 * request that just arrived waits for the work under way. CPU time, not wall-clock time, so a machine
 * busy with other work stretches neither the measure nor the test that bounds it.
 */

export interface StretchWatch {
  /** The longest stretch so far, in ms of CPU. */
  longest(): number;
  stop(): number;
}

/** Watches this process; `report` hears each stretch over 5 ms (a process that says so on stderr). */
export function watchStretches(report?: (ms: number) => void): StretchWatch {
  let longest = 0;
  let last = process.cpuUsage();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const now = process.cpuUsage();
    const ms = (now.user - last.user + now.system - last.system) / 1000;
    longest = Math.max(longest, ms);
    if (ms > 5) report?.(ms);
    last = process.cpuUsage();
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
