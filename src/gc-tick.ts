/**
 * A pass over every card file of a large vault (`check`, its census, a full comparison of the index,
 * restoring a backup) makes garbage faster than the collector notices: file texts and buffers live
 * outside the heap it sizes itself by, so a 100k-card pass let the process grow to 500-600 MB around
 * a live set of about 150. Such a pass ticks once a file; every `every` ticks the collector runs (a
 * quick one, not a full collection), which holds the pass near its live set for a few milliseconds
 * a time.
 */
export function gcTick(every = 5000): () => void {
  let n = 0;
  return () => {
    if (++n % every === 0) Bun.gc(false);
  };
}
