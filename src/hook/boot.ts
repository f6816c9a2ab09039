/**
 * The hook's boot block (README "The boot block"): at SessionStart, before the first prompt, the
 * vault's guide (with `--style-brief`, the style brief after it) and its always-on cards go into the
 * session once, as Claude Code's additionalContext. Then boot recall: the cards named by the working
 * folder's name or its repository's (workspace.ts) follow, in a block of their own that says where
 * they came from, within what the budget and Claude Code's cap leave (settings.yaml
 * `boot_recall: false` turns it off).
 * The session's ledger records them at turn 0, which its prompts treat as in context for the whole
 * session (ledger.ts), so an always-on card is not sent again with a prompt. A session resumed keeps
 * the boot block it had in its transcript; one cleared or compacted has lost it and gets it again,
 * with its ledger started over.
 */
import { DEFAULTS, type LoreSwitch } from "../defaults.ts";
import { type Markers, markersFromSecret } from "../inject/index.ts";
import { type BookAsk, type Chosen, chosenCards, type Engine, openEngine } from "../recall/index.ts";
import type { Store } from "../state/index.ts";
import { blockOpening, type OpeningOptions } from "../style-surface/brief.ts";
import { SettingsFile } from "../vault/index.ts";
import type { HookInput } from "./input.ts";
import { conversationId, recordBoot, resetSession } from "./ledger.ts";
import { type AskGit, askGit, type Workspace, workspaceOf, workspaceText } from "./workspace.ts";

export interface BootOptions {
  vaultRoot: string;
  budget?: number;
  /** Claude Code's context cap for hook output (run.ts MAX_CONTEXT_CHARS). */
  maxContextChars: number;
  now: () => Date;
  /** What opens the boot block besides the guide (`--style-brief`), and where a problem is said. */
  opening: Omit<OpeningOptions, "context">;
  /** Asks git for the working folder's remotes (tests inject their own). */
  askGit?: AskGit;
  /** The lore switch (`--lore`; else settings.yaml): `none` starts the session with nothing. */
  lore?: LoreSwitch;
  /** The books the session reads (`--book`, `$LORECARDS_BOOKS`: the project's; docs/BOOKS.md). */
  books?: BookAsk;
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
  // The switch an agent set for this session (MCP set_lore) wins over `--lore`: `none` sends nothing.
  const lore = (await store.loadConversation(session)).lore ?? options.lore;
  if (lore === "none") return undefined;
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
      guide: await blockOpening(engine.vault, options.opening),
      seed: `${input.sessionId}:0`,
      conversationId: session,
      lore,
      books: options.books,
    });
    const stable = result.blocks.find((b) => b.tier === "stable");
    const chosen = stable ? chosenCards(result).filter((c) => stable.cards.includes(c.id)) : [];
    const bootRecall = new SettingsFile(engine.vault.root, () => {}).current().bootRecall !== false;
    const workspace = bootRecall ? workspaceOf(input.cwd, options.askGit ?? askGit) : undefined;
    const found =
      workspace &&
      (await recallWorkspace(
        engine,
        workspace,
        chosen,
        stable?.wrapped,
        markers,
        { ...options, lore },
        input,
      ));
    const blocks = [stable?.wrapped, found?.wrapped].filter((b): b is string => b !== undefined);
    if (blocks.length === 0) return undefined;
    const cards = [...chosen, ...(found?.cards ?? [])];
    await recordBoot(store, session, cards, at);
    return { block: blocks.join("\n\n"), cards: cards.map((c) => c.card.key) };
  } finally {
    engine.close();
  }
}

/**
 * The cards the working folder's and repository's names bring, after the boot cards: only what was
 * named (no reach), never a boot card again, within the budget and cap the boot block left.
 */
async function recallWorkspace(
  engine: Engine,
  workspace: Workspace,
  boot: readonly Chosen[],
  bootBlock: string | undefined,
  markers: Markers,
  options: BootOptions,
  input: HookInput,
): Promise<{ wrapped: string; cards: Chosen[] } | undefined> {
  const budget = (options.budget ?? DEFAULTS.budget) - boot.reduce((n, c) => n + c.chars, 0);
  const room = options.maxContextChars - (bootBlock === undefined ? 0 : bootBlock.length + 2);
  if (budget <= 0 || room <= 0) return undefined;
  const result = await engine.recall([{ role: "user", text: workspaceText(workspace) }], {
    budget,
    candidates: false,
    markers,
    maxContextChars: room,
    reach: "named",
    inContext: new Set(boot.map((c) => c.id)),
    framing: `${describeWorkspace(workspace)}:\n\n`,
    seed: `${input.sessionId}:0:workspace`,
    lore: options.lore,
    books: options.books,
  });
  const block = result.blocks[0];
  if (block?.wrapped === undefined) return undefined;
  const cards = chosenCards(result).filter((c) => block.cards.includes(c.id));
  // Recall lets a lone top card past its budget; here it is not the boot block's top card.
  if (cards.reduce((n, c) => n + c.chars, 0) > budget) return undefined;
  return { wrapped: block.wrapped, cards };
}

/** `Where this session works (folder "payments team", repository "payments-api")`. */
function describeWorkspace(w: Workspace): string {
  const parts = [`folder "${w.folder}"`, ...(w.repository ? [`repository "${w.repository}"`] : [])];
  return `Where this session works (${parts.join(", ")})`;
}
