/**
 * The hook's boot block (README "The boot block"): at SessionStart, before the first prompt, the
 * vault's guide (with `--style-brief`, the style brief after it) and its always-on cards go into the
 * session once, as Claude Code's additionalContext.
 * The session's ledger records them at turn 0, which its prompts treat as in context for the whole
 * session (ledger.ts), so an always-on card is not sent again with a prompt. A session resumed keeps
 * the boot block it had in its transcript; one cleared or compacted has lost it and gets it again,
 * with its ledger started over.
 */
import { markersFromSecret } from "../inject/index.ts";
import { opening } from "../learn/brief.ts";
import { openEngine } from "../recall/index.ts";
import type { Store } from "../state/index.ts";
import { readGuide } from "../vault/index.ts";
import type { HookInput } from "./input.ts";
import { conversationId, recordBoot, resetSession } from "./ledger.ts";

export interface BootOptions {
  vaultRoot: string;
  budget?: number;
  /** Claude Code's context cap for hook output (run.ts MAX_CONTEXT_CHARS). */
  maxContextChars: number;
  now: () => Date;
  /** `--style-brief`: the style brief, which follows the guide. */
  brief?: () => Promise<string>;
}

/** The boot block to answer SessionStart with (between our markers), or undefined for none. */
export async function bootSession(
  input: HookInput,
  store: Store,
  options: BootOptions,
): Promise<{ block: string; cards: string[] } | undefined> {
  if (!input.sessionId || input.source === "resume") return undefined;
  const session = conversationId(input.sessionId);
  const at = options.now().getTime();
  // The context was compacted or cleared: earlier hook context is gone, cards may go in again.
  if (input.source === "compact" || input.source === "clear") await resetSession(store, session, at);
  const engine = await openEngine(options.vaultRoot, { persist: true });
  try {
    const markers = markersFromSecret(await store.markerSecret());
    // No words yet: only what needs none comes in, the always-on cards (and still-sticky ones, none
    // in a new session), with the guide in front.
    const result = await engine.recall([{ role: "user", text: "" }], {
      budget: options.budget,
      candidates: false,
      markers,
      maxContextChars: options.maxContextChars,
      tiers: true,
      guide: opening(readGuide(engine.vault.root, engine.vault.kinds), (await options.brief?.()) ?? ""),
      seed: `${input.sessionId}:0`,
      conversationId: session,
    });
    const stable = result.blocks.find((b) => b.tier === "stable");
    if (stable?.wrapped === undefined) return undefined;
    const chosen = result.chosen.filter((c) => stable.cards.includes(c.id));
    await recordBoot(store, session, chosen, at);
    return { block: stable.wrapped, cards: chosen.map((c) => c.key) };
  } finally {
    engine.close();
  }
}
