/**
 * What was worked out of a text lately, kept by the text: a chat message stays in the scan window for
 * several turns (and a retry or a tool loop sends it again), so the same texts come back request after
 * request. The least recently used go first, within a budget of characters over all the texts kept,
 * so what is kept is bounded whatever the messages; a text longer than `longest` is worked out each
 * time (one such message would push out everything else).
 */
export class TextMemo<T> {
  private readonly kept = new Map<string, T>();
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

  /** The value kept for `text`, if any (marked as the most recently used). */
  peek(text: string): T | undefined {
    const known = this.kept.get(text);
    if (known !== undefined) {
      // Most recently used last: a Map keeps insertion order.
      this.kept.delete(text);
      this.kept.set(text, known);
    }
    return known;
  }

  /** Keeps `value` for `text`, letting the least recently used go to stay within the budget. */
  remember(text: string, value: T): void {
    if (text.length > this.longest || this.kept.has(text)) return;
    for (const old of this.kept.keys()) {
      if (this.chars + text.length <= this.budget) break;
      this.kept.delete(old);
      this.chars -= old.length;
    }
    this.kept.set(text, value);
    this.chars += text.length;
  }
}
