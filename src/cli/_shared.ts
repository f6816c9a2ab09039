/**
 * What every command shares: the global `--vault` and `--json` flags, and how a command prints its
 * result. Only cli/ reads argv and the environment; everything below it takes plain options. It loads
 * nothing but errors.ts, so `--version` and `--help` stay light (the vault a command works on is
 * resolved by _vault.ts).
 */
import type { ArgsDef, CommandDef } from "citty";
import { LoreError } from "../errors.ts";
import { writeStdout } from "./_out.ts";

/**
 * citty's `defineCommand`, which only returns its argument: importing it would load citty and
 * node:util on every command, where only help and the argv _parse.ts leaves to citty need them.
 */
export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}

export const vaultArg = {
  vault: {
    type: "string",
    description: "vault directory (default: $LORECARDS_VAULT, then ~/.lorecards)",
    valueHint: "DIR",
  },
} as const;

export const jsonArg = {
  json: { type: "boolean", description: "print one JSON object instead of text" },
} as const;

export function printJson(value: unknown): void {
  writeStdout(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(text: string): void {
  writeStdout(text.endsWith("\n") ? text : `${text}\n`);
}

/** Shorter tokens are refused at start-up: 16 hex characters are 64 bits, beyond any guessing. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The access token: --token, else $LORECARDS_TOKEN. The variable keeps the token out of `ps` output
 * (a systemd unit can load it from an EnvironmentFile). A short one is a usage error (exit 2), said
 * before anything listens.
 */
export function tokenFrom(args: { token?: string }): string | undefined {
  const token = args.token || process.env.LORECARDS_TOKEN || undefined;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new LoreError(
      "usage",
      `${args.token ? "--token" : "$LORECARDS_TOKEN"} is ${token.length} characters long; it needs at least ` +
        `${MIN_TOKEN_LENGTH}. Make a good one with: openssl rand -hex 16`,
    );
  }
  return token;
}

/** A flag that takes a whole number ≥ 0 (a budget, a depth, a turn count); undefined when absent. */
export function wholeNumber(
  value: string | undefined,
  flag: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) > max) {
    const what = max === 65535 ? "a port number (0–65535)" : "a whole number ≥ 0";
    throw new LoreError("usage", `${flag} must be ${what}, got "${value}"`);
  }
  return Number(value);
}

export function portNumber(value: string | undefined, flag = "--port"): number | undefined {
  return wholeNumber(value, flag, 65535);
}

/**
 * Resolves when the process is asked to stop (SIGINT/SIGTERM), after `close` has run. Server
 * commands await this, so they return only on shutdown.
 */
export function untilShutdown(close: () => Promise<unknown> | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      Promise.resolve(close()).then(
        () => resolve(),
        () => resolve(),
      );
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/** One JSON object on one line: what a server command prints under --json once it is listening. */
export function printJsonLine(value: unknown): void {
  writeStdout(`${JSON.stringify(value)}\n`);
}

/** `--allow-host a.example,b.lan` → the names, lower case. */
export function hostList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

/** Every value of a flag given more than once, in order (citty keeps only the last of a repeated flag). */
export function repeatedFlag(rawArgs: readonly string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i]!;
    if (token === "--") break;
    if (token === flag && i + 1 < rawArgs.length) values.push(rawArgs[++i]!);
    else if (token.startsWith(`${flag}=`)) values.push(token.slice(flag.length + 1));
  }
  return values;
}
