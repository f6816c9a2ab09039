/**
 * How much of a chat body the gateway takes on. Decoding, parsing, rewriting and serialising a body
 * all run on the one thread every other request also needs, so past these bounds the body goes
 * upstream exactly as it came (fail open) rather than hold everyone up:
 * - more than `maxBytes`: streamed through without being buffered. The Anthropic Messages API
 *   refuses more than 32 MB anyway (https://docs.anthropic.com/en/api/overview#request-size-limits);
 *   a 20 MB chat of images and history is still read and injected, in a few hundred milliseconds.
 * - nested more than `maxDepth` levels: JSON.parse copes, but JSON.stringify overflows the stack,
 *   and only after some 2 s of work. A linear scan of the brackets outside strings (json-depth.ts)
 *   finds it first.
 * Between the phases of a request the gateway also lets others run (`letOthersRun`), so a large body
 * within bounds costs another request one phase at most, never the whole request.
 */

export const BODY_LIMITS = { maxBytes: 32 * 1024 * 1024, maxDepth: 1000 } as const;

export type BodyRead =
  | { tooLarge: false; bytes: Uint8Array<ArrayBuffer> }
  /** `body` is what is left to pass on: the untouched request stream, or what was read plus the rest. */
  | { tooLarge: true; body: ReadableStream<Uint8Array> | null };

/**
 * The body in memory when it is at most `maxBytes`. A declared Content-Length says so before anything
 * is read; a body sent in chunks is read until it passes the limit and is then stitched back together.
 */
export async function readBounded(req: Request, maxBytes: number): Promise<BodyRead> {
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > maxBytes) return { tooLarge: true, body: req.body };
    return { tooLarge: false, bytes: await req.bytes() };
  }
  if (req.body === null) return { tooLarge: false, bytes: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { tooLarge: false, bytes: concat(chunks, size) };
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) return { tooLarge: true, body: rejoin(chunks, reader) };
  }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  return Buffer.concat(chunks, size) as Uint8Array<ArrayBuffer>;
}

/** The chunks already read, then whatever the client still sends. */
function rejoin(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks.splice(0)) controller.enqueue(c);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Bodies from this size on take long enough per phase (a millisecond or more) to be worth a yield. */
export const YIELD_FROM_BYTES = 256 * 1024;

/**
 * Lets requests that are waiting (a small GET, another chat) run before the next phase of this one,
 * when this one is large; a small body's phases take microseconds, and a yield would only add a
 * trip round the event loop to every request.
 */
export function letOthersRun(large: boolean): Promise<void> {
  return large ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve();
}
