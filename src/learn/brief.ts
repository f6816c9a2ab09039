/**
 * The style brief as a surface sends it (`--style-brief`, README "Style memory"): the text of the
 * vault's current brief for the context given, to go in the gateway's stable block or the hook's boot
 * block, after the guide. Off unless asked for. A brief with nothing learned yet sends nothing, and a
 * style book that cannot be read costs one line through `warn`, never the block.
 */
import type { StyleOptions } from "../style/index.ts";

export async function styleBrief(
  vaultRoot: string,
  options: { style?: StyleOptions; context?: string; warn: (line: string) => void; who: string },
): Promise<string> {
  try {
    const { openStyle } = await import("../style/index.ts");
    const book = await openStyle(vaultRoot, options.style);
    try {
      const answer = await book.brief({ context: options.context });
      return answer.kind === "full" && answer.revision > 0 && answer.sections.some((s) => s.lines.length > 0)
        ? answer.text
        : "";
    } finally {
      await book.close();
    }
  } catch (err) {
    options.warn(`${options.who}: no style brief (${err instanceof Error ? err.message : String(err)})`);
    return "";
  }
}

/** The text that opens a stable or boot block: the guide, then the brief, each when there is one. */
export function opening(guide: string, brief: string): string {
  return [guide.trim(), brief.trim()].filter((t) => t !== "").join("\n\n");
}
