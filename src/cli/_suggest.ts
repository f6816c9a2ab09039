/**
 * "Did you mean": the known name closest to a mistyped one, by edit distance (a letter added, dropped,
 * changed, or two swapped), when it is close enough to be what was meant: at most one edit for a name
 * of up to four letters, two beyond, and never more than a third of the name.
 */

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate `given` most likely meant, or undefined when none is close. */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  const word = given.toLowerCase();
  const allowed = Math.min(word.length <= 4 ? 1 : 2, Math.max(1, Math.floor(word.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name.toLowerCase());
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  // A prefix typed short (`--budg`) is as good a guess, when only one name starts so.
  if (best === undefined && word.length >= 3) {
    const starts = candidates.filter((n) => n.toLowerCase().startsWith(word));
    if (starts.length === 1) return starts[0];
  }
  return best?.name;
}

/** `; did you mean "x"?` or nothing. */
export function didYouMean(
  given: string,
  candidates: readonly string[],
  quote = (s: string) => `"${s}"`,
): string {
  const guess = closest(given, candidates);
  return guess === undefined ? "" : `; did you mean ${quote(guess)}?`;
}
