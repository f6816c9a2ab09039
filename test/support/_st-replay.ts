/**
 * What `oracle.mjs eval` cannot ask SillyTavern's own code:
 * - timed effects: its eval is a dry run, which neither reads nor writes the chat's timed-effects memory
 *   (sticky, cooldown, and delay too): a conversation has to be replayed as SillyTavern lives it, one
 *   generation after each user message, with the memory in `chat_metadata` kept between generations
 *   and cleared between conversations;
 * - budgets: the judge ships without tokenizer models, so SillyTavern counts every text as 0 tokens
 *   and no budget ever runs out; a question may ask for its "no tokenizer" estimate instead
 *   (`tokenizer: "estimate"`: characters / 3.35, rounded up), which counts.
 * This drives that in the judge's page, with the World Info settings `oracle.mjs` holds (its README), so
 * its answers and the oracle's are comparable.
 */
import { chromium } from "playwright-core";
import { CHROMIUM } from "./editor-browser.ts";
import type { Activation, Answer, Question } from "./sillytavern.ts";

/** A conversation to replay: SillyTavern generates once after each prefix of `steps` messages. */
export interface Replay extends Question {
  /** Message counts (oldest first) at which a generation runs; the answer is the last one's. */
  steps: number[];
  /** `estimate`: SillyTavern's "None" tokenizer (a character estimate) instead of its absent models. */
  tokenizer?: "estimate";
}

/** The settings `oracle.mjs eval` starts from (the judge's README), before a question's own. */
const ORACLE_SETTINGS = {
  world_info_min_activations: 0,
  world_info_min_activations_depth_max: 0,
  world_info_budget: 100,
  world_info_budget_cap: 0,
  world_info_include_names: false,
  world_info_recursive: false,
  world_info_overflow_alert: false,
  world_info_case_sensitive: false,
  world_info_match_whole_words: true,
  world_info_character_strategy: 1,
  world_info_use_group_scoring: false,
  world_info_max_recursion_steps: 0,
};

/** Replays each conversation in one page of SillyTavern at `url`; `books` maps a question's book path to its JSON. */
export async function replayTimed(
  url: string,
  replays: readonly Replay[],
  books: (file: string) => unknown,
): Promise<Answer[]> {
  if (replays.length === 0) return [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    page.on("dialog", (d) => void d.accept().catch(() => {}));
    await page.goto(`${url}/`, { waitUntil: "load", timeout: 120_000 });
    // Ready once the app finished its start-up: its loader and preloader are gone.
    await page.waitForFunction(
      () =>
        "SillyTavern" in window &&
        document.querySelector("#world_info") !== null &&
        document.querySelector("#loader") === null &&
        document.querySelector("#preloader") === null,
      null,
      { timeout: 120_000 },
    );
    const answers: Answer[] = [];
    for (const [n, r] of replays.entries()) {
      const oldestFirst = [...r.chat].reverse();
      const acts = await page.evaluate(
        async ({ name, book, settings, depth, steps, oldestFirst, estimate }) => {
          const wi = await import(`${location.origin}/scripts/world-info.js`);
          const st = await import(`${location.origin}/script.js`);
          const { power_user } = await import(`${location.origin}/scripts/power-user.js`);
          const { tokenizers } = await import(`${location.origin}/scripts/tokenizers.js`);
          power_user.tokenizer = estimate ? tokenizers.NONE : tokenizers.BEST_MATCH;
          wi.worldInfoCache.set(name, book);
          wi.setWorldInfoSettings(
            { ...settings, world_info_depth: depth, world_info: [name] },
            { world_names: [] },
          );
          st.chat_metadata.timedWorldInfo = {};
          let last: unknown[] = [];
          for (const count of steps) {
            const chat = oldestFirst.slice(0, count).reverse();
            const out = await wi.checkWorldInfo(chat, 100_000_000, false);
            last = [...out.allActivatedEntries].map((e: Record<string, unknown>) => ({
              uid: e.uid,
              order: e.order,
              position: e.position,
              depth: e.depth ?? null,
              role: e.role ?? null,
              constant: Boolean(e.constant),
            }));
          }
          return last;
        },
        {
          name: `__lorecards_replay_${n}`,
          book: books(r.book),
          settings: { ...ORACLE_SETTINGS, ...r.settings },
          depth: r.depth,
          steps: r.steps,
          oldestFirst,
          estimate: r.tokenizer === "estimate",
        },
      );
      answers.push({ id: r.id, acts: acts as Activation[] });
    }
    return answers;
  } finally {
    await browser.close();
  }
}
