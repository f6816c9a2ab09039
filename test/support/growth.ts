/**
 * Complexity as a ratio, never a wall-clock bound: how much longer a call takes on an input `factor`
 * times the size of another, both measured in the same run (the machine's speed and load cancel
 * out). Each size is run in rounds of repeated calls lasting at least `ROUND_MS`, and the cheapest
 * round is kept, so a garbage collection does not count. What is counted is the CPU time the process
 * spent, not time on the clock: on a machine shared with other busy processes a short call often runs
 * within one time slice while a long one waits its turn again and again, and clock time would make a
 * linear call look quadratic. A linear call grows by about `factor`, a quadratic one by `factor`
 * squared; a call bounded before it runs does not grow at all.
 */
import { expect } from "bun:test";

const ROUND_MS = 20;
/**
 * Calls faster than this are compared as if they took this long: under 20 µs a call's time is cache
 * luck (a trim of a short string costs nothing, of a long one a copy), and a call that is really
 * quadratic on the bigger input takes milliseconds or more, far above any ratio of noise.
 */
const FLOOR_MS = 0.02;
const ROUNDS = 4;

/** CPU milliseconds (user and system, every thread) the process has spent so far. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU milliseconds per call of `run(input)`, the cheapest of `ROUNDS` rounds. */
export async function perCall<T>(run: (input: T) => unknown, input: T): Promise<number> {
  await run(input); // warm: compiled code and caches, not the first call, are what is compared
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    let calls = 0;
    const start = performance.now();
    const cpu = cpuNow();
    do {
      await run(input);
      calls++;
    } while (performance.now() - start < ROUND_MS);
    best = Math.min(best, (cpuNow() - cpu) / calls);
  }
  return best;
}

export interface Growth {
  small: number;
  big: number;
  /** big / small. */
  ratio: number;
}

/** How a call's time grows from `small` to `big` (inputs made by `make` at sizes `n` and `n * factor`). */
export async function growth<T>(
  run: (input: T) => unknown,
  make: (size: number) => T,
  n: number,
  factor: number,
): Promise<Growth> {
  const smallInput = make(n);
  const bigInput = make(n * factor);
  const small = await perCall(run, smallInput);
  const big = await perCall(run, bigInput);
  return { small, big, ratio: big / Math.max(small, FLOOR_MS) };
}

/**
 * The most a linear call may grow by `factor`: the factor to the power 1.5, halfway between linear
 * and quadratic on a log scale (16 → 64, where linear is 16 and quadratic 256). A call of a few
 * microseconds grows faster than linear once its input leaves the processor's cache; a quadratic one
 * still shows far above it.
 */
export function linearLimit(factor: number): number {
  return factor ** 1.5;
}

/** `unit` repeated to exactly `size` UTF-16 units (never ending in half a surrogate pair). */
export function runOf(unit: string, size: number): string {
  const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? `${text.slice(0, -1)} ` : text;
}

/**
 * `work(size)` costs no more than linear time from `small` to `large` (at least 16 times larger, so
 * linear and quadratic lie far apart): its growth stays within `linearLimit`.
 */
export async function expectLinear(
  work: (size: number) => unknown,
  small: number,
  large: number,
): Promise<void> {
  const factor = large / small;
  if (factor < 16) throw new Error(`expectLinear: sizes ${small} and ${large} are too close to tell apart`);
  const { ratio } = await growth(work, (size) => size, small, factor);
  expect(ratio).toBeLessThan(linearLimit(factor));
}
