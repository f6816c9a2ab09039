/**
 * The command line. Parses argv with citty's rules, but owns three things citty leaves loose:
 * `--vault` and `--json` work on either side of the subcommand, an unknown flag is an error (exit 2)
 * instead of being ignored, and help is plain text when piped. Errors become one line on stderr (and a
 * JSON object on stdout under --json) with the exit code of their LoreError code. Cold starts load
 * neither citty (_parse.ts parses the usual argv) nor any command but the one run.
 */
import type { ArgsDef, CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { describeError, EXIT_CODES, errorCodeOf, LoreError } from "../errors.ts";
import { withExamples } from "./_examples.ts";
import { quietOnEpipe, stdoutStream } from "./_out.ts";
import { simpleArgs } from "./_parse.ts";
import { defineCommand, jsonArg, vaultArg } from "./_shared.ts";
import { didYouMean } from "./_suggest.ts";

type Loader = () => Promise<CommandDef<ArgsDef>>;

/**
 * Subcommands load lazily so the hook and `try` do not pay for the gateway or the MCP SDK. Each
 * command's description lives in its own file (its citty `meta`), shown by `lorecards --help`.
 */
const COMMANDS: Record<string, Loader> = {
  init: () => lazy(import("./init.ts")),
  list: () => lazy(import("./list.ts")),
  read: () => lazy(import("./read.ts")),
  try: () => lazy(import("./try.ts")),
  explain: () => lazy(import("./explain.ts")),
  check: () => lazy(import("./check.ts")),
  refresh: () => lazy(import("./refresh.ts")),
  stats: () => lazy(import("./stats.ts")),
  gateway: () => lazy(import("./gateway.ts")),
  hook: () => lazy(import("./hook.ts")),
  mcp: () => lazy(import("./mcp.ts")),
  ui: () => lazy(import("./ui.ts")),
  import: () => lazy(import("./import.ts")),
  export: () => lazy(import("./export.ts")),
  repair: () => lazy(import("./repair.ts")),
  style: () => lazy(import("./style.ts")),
  history: () => lazy(import("./history.ts")),
  revert: () => lazy(import("./revert.ts")),
  new: () => lazy(import("./new.ts")),
  update: () => lazy(import("./update.ts")),
  archive: () => lazy(import("./archive.ts")),
  restore: () => lazy(import("./restore.ts")),
  backup: () => lazy(import("./backup.ts")),
  "restore-backup": () => lazy(import("./restore-backup.ts")),
  tenant: () => lazy(import("./tenant.ts")),
};

async function lazy(mod: Promise<Record<string, unknown>>): Promise<CommandDef<ArgsDef>> {
  const m = await mod;
  const cmd = Object.values(m).find((v) => typeof v === "object" && v !== null && "run" in v);
  if (!cmd) throw new LoreError("internal", "command module exports no command");
  return cmd as CommandDef<ArgsDef>;
}

/**
 * What other tools call our commands, for the guess after an unknown one: `show` is no typo of `read`,
 * and a new user typed it first.
 */
const OTHER_NAMES: Record<string, string> = {
  show: "read",
  cat: "read",
  get: "read",
  view: "read",
  ls: "list",
  add: "new",
  create: "new",
  edit: "update",
  set: "update",
  rm: "archive",
  delete: "archive",
  remove: "archive",
  search: "try",
  find: "try",
  undo: "revert",
  log: "history",
  serve: "ui",
  editor: "ui",
  proxy: "gateway",
  lint: "check",
  doctor: "check",
};

const GLOBAL_FLAGS = new Set(["--vault", "--json"]);

/**
 * Old flag names still understood, per command: the gateway called its scan depth `--window` before
 * every command called it `--scan-depth`. Help shows only the new name.
 */
const OLD_FLAGS: Record<string, Record<string, string>> = { gateway: { "--window": "--scan-depth" } };

/** `rest` with each old flag name of `command` written as its new one (`--window=3` too). */
export function renameOldFlags(command: string, rest: readonly string[]): string[] {
  const renames = OLD_FLAGS[command] ?? {};
  return rest.map((token) => {
    const [name = "", ...value] = token.split("=");
    const renamed = renames[name];
    return renamed === undefined ? token : [renamed, ...value].join("=");
  });
}

/**
 * Commands whose last positional is words a person types: more words than it takes are that text,
 * unquoted (`lorecards try I borrowed Maggie's ladder`). Any other command refuses a word too many
 * instead of dropping it (`history Anna 2` read as `history Anna`).
 */
const TEXT_LAST = new Set(["try", "explain", "update", "new"]);

/** Commands that run once per prompt and exit: they keep the start-up JIT policy. */
const SHORT_LIVED = new Set(["hook", "try"]);

function rootCommand() {
  return defineCommand({
    meta: {
      name: "lorecards",
      version: pkg.version,
      description: "a keyword-triggered card book for AI companions",
    },
    args: { ...vaultArg, ...jsonArg },
    subCommands: COMMANDS,
  });
}

/**
 * Move `--vault X` / `--json` written before the subcommand to after it, so every subcommand sees
 * them as its own flags.
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  const before: string[] = [];
  const rest = [...argv];
  while (rest.length > 0 && rest[0]!.startsWith("-")) {
    const flag = rest.shift()!;
    const name = flag.split("=")[0]!;
    if (!GLOBAL_FLAGS.has(name) && !["--help", "-h", "--version", "-v"].includes(name)) {
      throw new LoreError(
        "usage",
        `unknown flag ${flag}${didYouMean(name.replace(/^--?/, ""), ["vault", "json", "help", "version"], (f) => `--${f}`)}`,
      );
    }
    before.push(flag);
    if (name === "--vault" && !flag.includes("=")) {
      const value = rest.shift();
      if (value === undefined) throw new LoreError("usage", "--vault needs a directory");
      before.push(value);
    }
  }
  if (rest.length === 0) return before;
  return [rest[0]!, ...before, ...rest.slice(1)];
}

/**
 * `argv` with the words past a command's positionals joined into its last one when that one is text
 * (TEXT_LAST); for any other command, a word too many is a usage error.
 */
export function withTextJoined(command: string, args: ArgsDef, argv: readonly string[]): string[] {
  const names = Object.entries(args)
    .filter(([, d]) => d.type === "positional")
    .map(([n]) => n);
  const at = checkFlags(args, argv);
  if (at.length <= names.length) return [...argv];
  if (!TEXT_LAST.has(command) || names.length === 0) {
    const takes = names.length === 0 ? "no words but flags" : names.map((n) => n.toUpperCase()).join(" ");
    throw new LoreError(
      "usage",
      `unexpected argument "${argv[at[names.length]!]}" (${command} takes ${takes})`,
    );
  }
  const joined = at.slice(names.length - 1);
  const text = joined.map((i) => argv[i]).join(" ");
  const drop = new Set(joined.slice(1));
  return argv.flatMap((token, i) => (drop.has(i) ? [] : i === joined[0] ? [text] : [token]));
}

/**
 * Every `--flag` after the subcommand must be one of its arguments (or `--no-` + a boolean one).
 * Returns where the positionals are: the tokens that are neither a flag nor a flag's value.
 */
export function checkFlags(args: ArgsDef, argv: readonly string[]): number[] {
  const at: number[] = [];
  const known = new Map<string, string>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const alias = "alias" in def ? def.alias : undefined;
    const names = [name, ...(Array.isArray(alias) ? alias : alias ? [alias] : [])];
    for (const n of names) known.set(n.length === 1 ? `-${n}` : `--${n}`, def.type ?? "string");
  }
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      for (let j = i + 1; j < argv.length; j++) at.push(j);
      break;
    }
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) {
      at.push(i);
      continue;
    }
    const name = token.split("=")[0]!;
    const negated = name.startsWith("--no-") ? `--${name.slice(5)}` : undefined;
    const type = known.get(name) ?? (negated && known.get(negated) === "boolean" ? "boolean" : undefined);
    if (type === undefined) {
      const flags = [...known.keys()].filter((f) => f.startsWith("--"));
      throw new LoreError(
        "usage",
        `unknown flag ${name}${didYouMean(
          name.replace(/^--/, ""),
          flags.map((f) => f.slice(2)),
          (f) => `--${f}`,
        )}`,
      );
    }
    if (type !== "boolean" && !token.includes("=")) {
      const value = argv[i + 1];
      if (value === undefined) throw new LoreError("usage", `${name} needs a value`);
      i++;
    }
  }
  return at;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Help as plain text: no colour, and no trailing spaces. citty pads each line to the widest one, so
 * without this one longer description would change every line of a piped help (and of its snapshot). */
function plainHelp(text: string): string {
  return text.replace(ANSI, "").replace(/[ \t]+$/gm, "");
}

// biome-ignore lint/suspicious/noExplicitAny: citty's usage renderer takes commands of any argument shape.
async function usage(cmd: CommandDef<any>, parent?: CommandDef<any>): Promise<string> {
  const { renderUsage } = await import("citty");
  const meta = typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta;
  const text = withExamples(await renderUsage(cmd, parent), parent ? (meta?.name ?? "") : "");
  return stdoutStream().isTTY ? text : plainHelp(text);
}

/** Every command's name, in the order `lorecards --help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/** What `lorecards [command] --help` prints when piped (plain text): the help a person reads. */
export async function helpText(name?: string): Promise<string> {
  const { renderUsage } = await import("citty");
  // biome-ignore lint/suspicious/noExplicitAny: citty's usage renderer takes any command's args.
  const root: CommandDef<any> = rootCommand();
  const load = name === undefined ? undefined : COMMANDS[name];
  if (name !== undefined && !load) throw new LoreError("usage", `unknown command "${name}"`);
  const text = load ? await renderUsage(await load(), root) : await renderUsage(root);
  return plainHelp(withExamples(text, name ?? ""));
}

/** Run the CLI; resolves to the process exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  try {
    const args = normalizeArgv(argv);
    const root = rootCommand();
    const name = args[0];
    if (name === undefined || name === "--help" || name === "-h" || name.startsWith("-")) {
      if (args.includes("--version") || args.includes("-v")) {
        // Bun.write, not writeStdout: the version needs nothing loaded, not even node:fs.
        await Bun.write(Bun.stdout, `${pkg.version}\n`).catch(quietOnEpipe);
        return 0;
      }
      stdoutStream().write(`${await usage(root)}\n`);
      return name === undefined || args.includes("--help") || args.includes("-h") ? 0 : 2;
    }
    // `lorecards help` and `lorecards help COMMAND`, as `--help` and `COMMAND --help`.
    if (name === "help") {
      const topic = args[1];
      if (topic === undefined) {
        stdoutStream().write(`${await usage(root)}\n`);
        return 0;
      }
      return runCli([topic, "--help"]);
    }
    const load = COMMANDS[name];
    if (!load) {
      const other = OTHER_NAMES[name.toLowerCase()];
      const guess = other
        ? `; did you mean "${other}"?`
        : didYouMean(name, [...Object.keys(COMMANDS), "help"]);
      throw new LoreError("usage", `unknown command "${name}"${guess} (lorecards help lists them)`);
    }
    // The binary starts with the JIT's tier-up thresholds raised (build.ts): right for the hook and
    // `try`, which live for milliseconds, wrong for a server or a long import.
    if (!SHORT_LIVED.has(name)) Bun.unsafe.setJITPolicy(1);
    const cmd = await load();
    const rest = renameOldFlags(name, args.slice(1));
    if (rest.includes("--help") || rest.includes("-h")) {
      stdoutStream().write(`${await usage(cmd, root)}\n`);
      return 0;
    }
    const cmdArgs = (typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {};
    const result = await run(cmd, cmdArgs, withTextJoined(name, cmdArgs, rest));
    return typeof result === "number" ? result : 0;
  } catch (err) {
    // Claude Code treats exit 2 from a UserPromptSubmit hook as "block this prompt and erase it",
    // and reads its stdout as the answer. The hook must never block a prompt, so even a mistyped
    // flag is only a message on stderr, with nothing on stdout and exit 0.
    if (commandName(argv) === "hook") {
      reportError(err, false);
      return 0;
    }
    return reportError(err, json);
  }
}

/** A command's run with its parsed arguments: by _parse.ts when it can, else by citty. */
async function run(cmd: CommandDef<ArgsDef>, def: ArgsDef, rawArgs: string[]): Promise<unknown> {
  const args = cmd.setup || cmd.cleanup || cmd.plugins ? undefined : simpleArgs(def, rawArgs);
  if (args === undefined || cmd.run === undefined) {
    const { runCommand } = await import("citty");
    return (await runCommand(cmd, { rawArgs })).result;
  }
  return cmd.run({ rawArgs, args: args as never, cmd });
}

/** The subcommand named in argv (after any global flags and their values), without validating. */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--vault") i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/**
 * citty's own errors are a `CLIError` with a stable code (citty does not export the class, so it is
 * known by its name): a missing or bad argument (`EARG`, a bad enum value included) or an unknown or
 * missing subcommand are usage errors, like ours.
 */
const CITTY_USAGE_CODES = new Set(["EARG", "E_UNKNOWN_COMMAND", "E_NO_COMMAND"]);

function isCittyUsageError(err: unknown): err is Error {
  return (
    err instanceof Error &&
    err.name === "CLIError" &&
    CITTY_USAGE_CODES.has(String((err as { code?: unknown }).code))
  );
}

function reportError(err: unknown, json: boolean): number {
  const usageError = isCittyUsageError(err);
  const code = usageError ? "usage" : errorCodeOf(err);
  // citty colours the values it names unless NO_COLOR is set; an error line is plain text.
  const detail = describeError(err).replace(ANSI, "");
  let message = detail;
  if (code === "internal" && err instanceof Error && process.env.LORECARDS_DEBUG)
    message = err.stack ?? message;
  process.stderr.write(`lorecards: ${message}\n`);
  if (json) stdoutStream().write(`${JSON.stringify({ error: code, detail })}\n`);
  return EXIT_CODES[code];
}
