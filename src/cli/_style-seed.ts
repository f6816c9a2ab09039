/**
 * `lorecards style score`, `init` and `distill` (docs/STYLE-MEMORY.md): the health score in words, and
 * the two submissions an agent's host makes, read as JSON from `--input` (a file, or `-` for stdin).
 * A submission refused exits 5 (`invalid_input`), an initialisation made before exits 4; what was
 * recorded, refused or skipped is printed either way.
 */
import { readFileSync } from "node:fs";
import { describeError, LoreError } from "../errors.ts";
import type { HintResult, StyleBook } from "../style/index.ts";
import { toWire } from "../wire.ts";
import { print, printJson } from "./_shared.ts";

export { describeScore } from "../style/score.ts";

interface SeedArgs {
  input?: string;
  skip?: boolean;
  conversation?: string;
  json?: boolean;
}

async function readInput(file: string | undefined, what: string): Promise<unknown> {
  if (file === undefined) throw new LoreError("usage", `style ${what} needs --input FILE (or - for stdin)`);
  let text: string;
  try {
    text = file === "-" ? await Bun.stdin.text() : readFileSync(file, "utf8");
  } catch (err) {
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new LoreError(
      "invalid_input",
      `${file === "-" ? "stdin" : file} is not JSON: ${describeError(err)}`,
    );
  }
}

/** `style init`: the state with neither flag; `--skip`; or the aggregates of `--input`. */
export async function initialize(book: StyleBook, args: SeedArgs): Promise<number> {
  if (args.skip && args.input !== undefined)
    throw new LoreError("usage", "init takes --skip or --input, not both");
  if (!args.skip && args.input === undefined) {
    const state = await book.initialization();
    if (args.json) printJson(toWire(state));
    else print(describeState(state.state));
    return 0;
  }
  const submission = args.skip ? { action: "skip" } : await readInput(args.input, "init");
  const result = await book.initialize(submission);
  if (args.json) printJson(toWire(result));
  else if (result.status === "initialized")
    print(`Initialised: ${result.recorded.map((h) => `${h.kind} "${h.signal}" (${h.state})`).join(", ")}.`);
  else if (result.status === "skipped") print("Initialisation skipped: it will not be asked for again.");
  else if (result.status === "paused")
    print("Learning is paused: nothing recorded (lorecards style resume).");
  else print(`Not initialised: ${result.reason}.`);
  return result.status === "refused" ? 5 : result.status === "already" ? 4 : 0;
}

function describeState(state: string): string {
  if (state === "needed")
    return "Style memory is empty and was never initialised: a host may submit aggregates of at most 12 of its sessions of the last 30 days once (style init --input FILE), or skip (style init --skip).";
  if (state === "not_needed") return "Style memory has learned already: no initialisation is needed.";
  return `Initialisation was ${state}.`;
}

/** `style distill --conversation ID --input FILE`: `{expressions: [...], preferences: [...]}`. */
export async function distill(book: StyleBook, args: SeedArgs): Promise<number> {
  if (!args.conversation) throw new LoreError("usage", "style distill needs --conversation ID");
  const raw = await readInput(args.input, "distill");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new LoreError("invalid_input", "the distillation is an object: {expressions, preferences}");
  const { expressions, preferences, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw new LoreError("invalid_input", `"${extra}" is not a field of a distillation`);
  if (expressions !== undefined && !Array.isArray(expressions))
    throw new LoreError("invalid_input", "expressions is a list of {signal, kind?, example?}");
  if (preferences !== undefined && !Array.isArray(preferences))
    throw new LoreError("invalid_input", "preferences is a list of sentences");
  const result = await book.distill(args.conversation, {
    expressions: expressions as { signal: string }[] | undefined,
    preferences: preferences as string[] | undefined,
  });
  const all = [...result.expressions, ...result.preferences];
  if (args.json) printJson(toWire(result));
  else print(all.map(describeHint).join("\n"));
  return all.every((r) => r.status === "refused") ? 5 : 0;
}

function describeHint(r: HintResult): string {
  if (r.status === "recorded") return `recorded ${r.habit.kind} "${r.habit.signal}" (${r.habit.state})`;
  return r.status === "paused" ? "paused: learning is off" : `refused: ${r.reason}`;
}
