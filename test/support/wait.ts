/**
 * Waiting for what another process or a file watcher does, without guessing how long that takes: each
 * helper resolves the moment the thing has happened, and fails naming it after a bound meant only to
 * end a hung test (a fixed sleep is either too short on a loaded machine or longer than needed).
 */

/** How long a wait goes on before it says what it waited for: far beyond a slow machine, short of the test timeout. */
const HANG_MS = 60_000;

/** Resolves once `check` holds, asking again every 2 ms (between, the event loop runs). */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = HANG_MS,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(2);
  }
}

export interface StreamText {
  /** Everything read so far. */
  text(): string;
  /** Resolves once the text read after offset `from` contains `needle`; rejects if the stream ends first. */
  waitFor(needle: string, from?: number, timeoutMs?: number): Promise<void>;
}

/** Reads a child process's output stream to its end in the background, as text. */
export function streamText(stream: ReadableStream<Uint8Array>): StreamText {
  let text = "";
  let ended = false;
  const listeners = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      for (const listener of listeners) listener();
    }
    ended = true;
    for (const listener of listeners) listener();
  })();
  return {
    text: () => text,
    waitFor: (needle, from = 0, timeoutMs = HANG_MS) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (text.slice(from).includes(needle)) done(resolve);
          else if (ended) done(() => reject(new Error(`the stream ended without ${JSON.stringify(needle)}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`no ${JSON.stringify(needle)} after ${timeoutMs} ms`))),
          timeoutMs,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      }),
  };
}
