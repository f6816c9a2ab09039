/**
 * What was worked out of a text lately, kept by the text: a chat message stays in the scan window for
 * several turns (and a retry or a tool loop sends it again), so the same texts come back request after
 * request. Within a budget of characters over all the texts kept, the least recently used go first, so
 * what is kept is bounded whatever the messages; a text longer than `longest` is worked out each time
 * (one such message would push out everything else).
 *
 * Recency is kept the way a clock cache keeps it: a text met again is only marked, and the marked ones
 * among the oldest are kept once more (moved to the newest end, unmarked) when room is made. A text
 * meets its memo several times a request, and moving it to the end of the map at each meeting (one
 * delete and one insert, each hashing and comparing a whole message) cost more than working out most
 * of what it keeps; a mark is one look-up. What goes first is then a text not met since it was kept or
 * last given its second chance: never one met more recently than a text that stays.
 */
export class TextMemo<T> {
  private readonly kept = new Map<string, { value: T; met: boolean }>();
  /** Characters of the texts in `kept`. */
  private chars = 0;

  constructor(
    private readonly budget: number,
    private readonly longest: number,
  ) {}

  /** What `make` gives for `text`: remembered, or made now (and remembered when the text is short enough). */
  get(text: string, make: (text: string) => T): T {
    const known = this.peek(text);
    if (known !== undefined) return known;
    const made = make(text);
    this.remember(text, made);
    return made;
  }

  /** The value kept for `text`, if any (marked as met again). */
  peek(text: string): T | undefined {
    const known = this.kept.get(text);
    if (known === undefined) return undefined;
    known.met = true;
    return known.value;
  }

  /** Keeps `value` for `text`, letting the least recently used go to stay within the budget. */
  remember(text: string, value: T): void {
    if (text.length > this.longest || this.kept.has(text)) return;
    // Each marked text is moved once and unmarked, so the walk ends within twice the texts kept.
    for (const [old, entry] of this.kept) {
      if (this.chars + text.length <= this.budget) break;
      this.kept.delete(old);
      if (entry.met) {
        entry.met = false;
        this.kept.set(old, entry);
      } else this.chars -= old.length;
    }
    this.kept.set(text, { value, met: false });
    this.chars += text.length;
  }
}
