/**
 * Serialising a large rewritten body in steps. `JSON.stringify` of a body of tens of megabytes is one
 * uninterrupted stretch on the thread every request needs, and its length is not even steady: the
 * message a block was put in front of is a new string that must first be copied whole, and the output
 * grows by copies of itself; on a busy machine one such call of a 28 MB chat took from 30 ms to over
 * 200. Here the body becomes a Blob of parts instead (a long string quoted a `STEP` of characters at
 * a time), with a turn of the event loop for others after every `STEP` of JSON written, so a step
 * costs a few milliseconds whatever the body holds; the first copy of a message the block was put in
 * front of is the one cost that stays whole. The bytes are exactly those of `JSON.stringify`.
 */
import type { Json } from "./_chat.ts";

/** Characters of JSON per step: a millisecond or two of work. */
export const STEP = 1 << 20;

/**
 * Bodies from this size on are written in steps. A smaller one costs less in one JSON.stringify
 * (some 7 ms at this size, and a 300 KB chat 0.6 ms against 1 ms in steps), and a long chat is
 * common enough that the difference counts.
 */
export const STEPS_FROM_BYTES = 4 * STEP;

/**
 * The bytes of `JSON.stringify(value)` as a Blob, written in steps of `STEP` characters with
 * `pause()` awaited between them. `value` is parsed JSON, or JSON edited with plain objects and arrays.
 */
export async function serialiseInSteps(value: Json, pause: () => Promise<void>): Promise<Blob> {
  const parts: string[] = [];
  let pending = "";
  let sinceStep = 0;
  const put = (text: string): void => {
    pending += text;
    if (pending.length < 64 * 1024) return;
    parts.push(pending);
    sinceStep += pending.length;
    pending = "";
  };
  /** Whether a step's worth has been written since the last pause. */
  const due = (): boolean => {
    if (sinceStep < STEP) return false;
    sinceStep = 0;
    return true;
  };
  // A generator that yields where a pause is due: resuming it costs no trip through the microtask
  // queue per value, as awaiting an async walk would for each of a body's many small values.
  function* walk(v: Json | undefined, inArray: boolean): Generator<void> {
    if (typeof v === "string" && v.length > STEP) {
      // A long string is quoted a piece at a time, never cutting a surrogate pair in two (each half
      // alone would be written as an escape, which JSON.stringify does not do for a whole pair).
      put('"');
      for (let from = 0; from < v.length; ) {
        let to = Math.min(from + STEP, v.length);
        if (to < v.length && isHighSurrogate(v.charCodeAt(to - 1))) to++;
        put(JSON.stringify(v.slice(from, to)).slice(1, -1));
        from = to;
        if (due()) yield;
      }
      put('"');
    } else if (v === null || typeof v !== "object") {
      // undefined (a field an edit left unset) is left out of an object and null in an array, as by JSON.stringify.
      put(v === undefined ? (inArray ? "null" : "") : JSON.stringify(v));
      if (due()) yield;
    } else if (Array.isArray(v)) {
      put("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) put(",");
        yield* walk(v[i], true);
      }
      put("]");
    } else {
      put("{");
      let first = true;
      for (const key of Object.keys(v)) {
        const item = v[key];
        if (item === undefined) continue;
        put(`${first ? "" : ","}${JSON.stringify(key)}:`);
        first = false;
        yield* walk(item, false);
      }
      put("}");
    }
  }
  for (const steps = walk(value, false); !steps.next().done; ) await pause();
  if (pending !== "") parts.push(pending);
  return new Blob(parts);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
