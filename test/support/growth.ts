/**
 * Complexity as a ratio, never a wall-clock bound: how much longer a call takes on an input `factor`
 * times the size of another, both measured in the same run (the machine's speed and load cancel
 * out). Each size is timed in rounds of repeated calls lasting at least `ROUND_MS`, and the fastest
 * round is kept, so a garbage collection or a neighbour's burst of work does not count. A linear call
 * grows by about `factor`, a quadratic one by `factor` squared; a call bounded before it runs does not
 * grow at all.
 */

const ROUND_MS = 20;
/**
 * Calls faster than this are compared as if they took this long: under 20 µs a call's time is cache
 * luck (a trim of a short string costs nothing, of a long one a copy), and a call that is really
 * quadratic on the bigger input takes milliseconds or more, far above any ratio of noise.
 */
const FLOOR_MS = 0.02;
const ROUNDS = 4;

/** Milliseconds per call of `run(input)`, the fastest of `ROUNDS` rounds. */
export async function perCall<T>(run: (input: T) => unknown, input: T): Promise<number> {
  await run(input); // warm: compiled code and caches, not the first call, are what is compared
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      await run(input);
      calls++;
      elapsed = performance.now() - start;
    } while (elapsed < ROUND_MS);
    best = Math.min(best, elapsed / calls);
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
