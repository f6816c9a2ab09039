/**
 * The module of the word segmentation thread (segment-thread.ts starts it): jieba is loaded here, on
 * the first text, and each text's words are sent back under the number it came with. A jieba that
 * cannot load is said for each text, as the same jieba in process would fail each cut.
 */
import { jiebaSegmenter } from "./segment.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ id: number; text: string }>) => {
  const { id, text } = event.data;
  try {
    self.postMessage({ id, words: (await jiebaSegmenter()).cut(text) });
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
