/**
 * The client recipes of docs/GATEWAY.md ("Clients"), run as the page shows them: the `@google/genai`
 * and `ollama` code blocks as a Node script with the pinned package (test/package.json), and the Gemini
 * CLI line as a shell command with a prompt on its stdin (and the settings file the page shows), each pointed at the compiled gateway instead
 * of the page's default port (client → recorder → `lorecards gateway` → the client fake upstream, all
 * on 127.0.0.1), with the README's Marguerite in the vault. A recipe must work as written: the card its
 * words name reaches the upstream once, in front of them, the conversation stays append-only, the
 * answers come back, and `stats` holds what the upstream billed.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../support/binary.ts";
import { billOf, storedTotals } from "../support/client-bill.ts";
import {
  type Arrival,
  appendOnlyBreaks,
  arrivals,
  duplicateCards,
  movedBlocks,
  otherChanges,
} from "../support/client-checks.ts";
import { binOf, type CliRun, describeRun, run } from "../support/client-cli.ts";
import type { Exchange } from "../support/client-replay.ts";
import { type ClientSession, startClientSession } from "../support/client-session.ts";
import { packageDir, TEST_PACKAGE } from "../support/clients.ts";
import { blockAfter, docCommands, jsonBlockAfter } from "../support/doc-commands.ts";
import { prerequisite } from "../support/prerequisites.ts";

const PAGE = "docs/GATEWAY.md";
const MARGUERITE = {
  dir: "people",
  key: "Marguerite",
  keywords: ["Marguerite", "Maggie"],
  body: "## who\nMy neighbour.\n",
};

interface Recipe {
  name: string;
  /** Runs the recipe against the gateway's origin, in a home of its own. */
  run(origin: string, home: string): Promise<CliRun>;
  /** What it prints: the fake upstream's answers. */
  prints: string[];
  /** The requests of the person's conversation (Gemini CLI's model router aside). */
  mine(x: Exchange): boolean;
  /** What reaches the upstream of the conversation: [request, message, card]. */
  arrivals: Arrival[];
  /** Each request's `X-Lorecards-Injected`. */
  injected: (string | null)[];
  needs: string;
}

/** A ```js block of the page, as a Node script beside the pinned clients, on the given origin. */
function nodeRecipe(after: string, needs: string): (origin: string, home: string) => Promise<CliRun> {
  return (origin, home) => {
    const code = blockAfter(REPO, PAGE, after, "js");
    if (code === undefined) throw new Error(`${PAGE} has no js block after ${after}`);
    // The node_modules the pinned package is in (test/'s, or the repository's).
    const modules = (packageDir(needs) ?? path.join(TEST_PACKAGE, "node_modules", needs)).slice(
      0,
      -needs.length - 1,
    );
    fs.symlinkSync(modules, path.join(home, "node_modules"));
    const script = path.join(home, "recipe.mjs");
    fs.writeFileSync(script, code.replace(/http:\/\/127\.0\.0\.1:\d+/g, origin));
    return run(["node", script], home, { HOME: home, GEMINI_API_KEY: "dummy" });
  };
}

const RECIPES: Recipe[] = [
  {
    name: "@google/genai: a chat's sendMessage, then sendMessageStream",
    run: nodeRecipe("**`@google/genai`**", "@google/genai"),
    prints: ["Noted, turn 1.", "Noted, turn 2."],
    mine: () => true,
    arrivals: [[1, 0, "Marguerite"]],
    injected: ["Marguerite", null],
    needs: "@google/genai",
  },
  {
    name: "ollama: chat streamed, then the history and a second message",
    run: nodeRecipe("**Ollama clients**", "ollama"),
    prints: ["Noted, turn 1.", "Noted, turn 2."],
    mine: () => true,
    arrivals: [[1, 0, "Marguerite"]],
    injected: ["Marguerite", null],
    needs: "ollama",
  },
  {
    name: "Gemini CLI: the page's command, the prompt on its stdin",
    run: (origin, home) => {
      const line = docCommands(REPO, PAGE).find((c) => c.line.startsWith("GOOGLE_GEMINI_BASE_URL="))?.line;
      if (line === undefined) throw new Error(`${PAGE} has no Gemini CLI command`);
      const settings = jsonBlockAfter(REPO, PAGE, "~/.gemini/settings.json");
      if (settings === undefined) throw new Error(`${PAGE} shows no Gemini CLI settings`);
      fs.mkdirSync(path.join(home, ".gemini"));
      fs.writeFileSync(path.join(home, ".gemini", "settings.json"), settings);
      const script = line
        .replace(/http:\/\/127\.0\.0\.1:\d+/g, origin)
        .replace("GEMINI_API_KEY=…", "GEMINI_API_KEY=dummy");
      return run(["sh", "-c", `echo "I borrowed Maggie's ladder again" | ${script}`], home, {
        HOME: home,
        PATH: `${path.dirname(binOf("gemini"))}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        // The folder the test runs it in is a fresh one; a person is asked once whether to trust theirs.
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      });
    },
    prints: ["Noted, turn 1."],
    // Its model router asks a small model first (generateContent); the chat streams.
    mine: (x) => x.sent.path.includes(":streamGenerateContent"),
    // Content 0 holds its <session_context> part, then the prompt.
    arrivals: [[1, 0, "Marguerite"]],
    injected: ["Marguerite"],
    needs: "@google/gemini-cli",
  },
];

const installed = (r: Recipe) =>
  prerequisite(
    packageDir(r.needs) !== undefined,
    `client-recipes.test.ts (${r.name})`,
    `${r.needs} is not installed (npm run test:clients)`,
  );

const SESSION_MS = 300_000;
const FAST_MS = 10_000;

describe.each(RECIPES.filter(installed))(`${PAGE}'s recipe for $name`, (recipe) => {
  let session: ClientSession | undefined;
  let result: CliRun | undefined;
  let all: Exchange[] = [];
  let xs: Exchange[] = [];
  const s = (): ClientSession => {
    if (!session) throw new Error("the session did not start");
    return session;
  };

  beforeAll(async () => {
    session = await startClientSession([MARGUERITE]);
    result = await recipe.run(session.url, session.dir());
    all = await session.exchanges();
    xs = all.filter(recipe.mine);
  }, SESSION_MS);
  afterAll(async () => {
    await session?.close();
  });

  test(
    "runs as written and prints the upstream's answers",
    () => {
      expect(result?.code, result && describeRun(result)).toBe(0);
      for (const answer of recipe.prints) expect(result?.stdout).toContain(answer);
    },
    FAST_MS,
  );

  test(
    "the card its words name reaches the upstream once, in front of them, and is named in X-Lorecards-Injected",
    () => {
      expect(arrivals(xs, s().markers), s().gatewayStderr()).toEqual(recipe.arrivals);
      expect(xs.map((x) => x.injected)).toEqual(recipe.injected);
      expect(duplicateCards(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "the block stays where it went, the conversation is append-only, and nothing else changes",
    () => {
      expect(movedBlocks(xs, s().markers)).toEqual([]);
      expect(appendOnlyBreaks(xs)).toEqual([]);
      expect(otherChanges(all, s().markers)).toEqual([]);
      for (const x of all) expect(x.text).toBe(x.upstream?.answer ?? "");
    },
    FAST_MS,
  );

  test("stats hold what the upstream billed for every answer of the conversation", async () => {
    const want = billOf(xs, xs.length);
    expect(await storedTotals(s().vault, want)).toEqual(want);
  });
});
