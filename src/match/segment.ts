/**
 * Word segmentation for text without spaces (Chinese, Japanese), with jieba-wasm. The module and its
 * dictionary cost a few hundred milliseconds and ~90 MB on first use, so they are loaded only when a
 * decision actually depends on word boundaries inside Han or kana text. The wasm file is imported as
 * a file asset so `bun build --compile` embeds it in the binary (the package's default entry point
 * would look for it in the build machine's node_modules). A long-running process segments on a thread
 * of its own instead (segment-thread.ts), with the same jieba.
 */
import { readFileSync } from "node:fs";
import { LoreError } from "../errors.ts";

export interface Segmenter {
  /** Words of `text` in order; they concatenate back to `text`. A segmenter on a thread answers later. */
  cut(text: string): string[] | Promise<string[]>;
}

/** jieba in this thread: it answers at once, and tags words too. */
export interface LocalSegmenter extends Segmenter {
  cut(text: string): string[];
  /** Words with jieba part-of-speech tags (nr = person name, ns = place name, …). */
  tag(text: string): { word: string; tag: string }[];
}

let loaded: Promise<LocalSegmenter> | undefined;

async function load(): Promise<LocalSegmenter> {
  const [jieba, asset] = await Promise.all([
    import("jieba-wasm/web"),
    import("./_jieba-asset.ts") as Promise<{ default: string }>,
  ]);
  jieba.initSync({ module: readFileSync(asset.default) });
  return {
    cut: (text) => jieba.cut(text, true),
    tag: (text) => jieba.tag(text, true),
  };
}

/** The shared jieba segmenter, loaded on first call. Fails with LoreError("internal") if it cannot load. */
export function jiebaSegmenter(): Promise<LocalSegmenter> {
  loaded ??= load().catch((err: unknown) => {
    loaded = undefined;
    throw new LoreError("internal", `word segmentation (jieba) failed to load: ${String(err)}`, {
      cause: err,
    });
  });
  return loaded;
}
