/**
 * The style brief as a surface sends it (`--style-brief`, README "Style memory"): the text of the
 * vault's current brief for the context given, to go in the gateway's stable block or the hook's boot
 * block, after the guide. Off unless asked for. A brief with nothing learned yet sends nothing, and a
 * style book that cannot be read costs one line through `warn`, never the block. `blockOpening` is
 * the one composition of the two, for the gateway and the hook alike.
 */
import type { KindsConfig } from "../card/types.ts";
import { describeError, type Warn } from "../errors.ts";
import type { StyleOptions } from "../style/index.ts";
import { readGuide } from "../vault/index.ts";

export interface OpeningOptions {
  /** `--style-brief`: the brief follows the guide. */
  styleBrief?: boolean;
  style?: StyleOptions;
  /** What the brief is for (the gateway: the newest message's words); none = the whole brief. */
  context?: string;
  warn: Warn;
  /** Who says a problem (`lorecards gateway`, `lorecards hook`). */
  who: string;
  /** The guide's text when the caller keeps it (a watching gateway); else it is read now. */
  guide?: string;
}

/**
 * What opens a conversation's stable block (the gateway) or a session's boot block (the hook): the
 * vault's guide (README "The boot block"), then, when asked for, the style brief.
 */
export async function blockOpening(
  vault: { root: string; kinds: KindsConfig },
  options: OpeningOptions,
): Promise<string> {
  const guide = options.guide ?? readGuide(vault.root, vault.kinds);
  if (!options.styleBrief) return guide;
  return opening(guide, await styleBrief(vault.root, options));
}

export async function styleBrief(
  vaultRoot: string,
  options: Pick<OpeningOptions, "style" | "context" | "warn" | "who">,
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
    options.warn(`${options.who}: no style brief (${describeError(err)})`);
    return "";
  }
}

/** The guide, then the brief, each when there is one. */
function opening(guide: string, brief: string): string {
  return [guide.trim(), brief.trim()].filter((t) => t !== "").join("\n\n");
}
