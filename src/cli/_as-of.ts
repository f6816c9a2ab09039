/**
 * `try --as-of VERSION_OR_TIME` (README "History"): recall runs on a copy of the vault as it was then
 * (vault/as-of.ts), made before the engine opens and removed when the process exits, whatever way it
 * exits. The try reports what the copy is made of, since cards without history are taken as they are now.
 */
import { LoreError } from "../errors.ts";
import { type AsOfVault, openVault, parseAsOf, vaultAsOf } from "../vault/index.ts";
import { vaultPath } from "./_vault.ts";

export const asOfArg = {
  "as-of": {
    type: "string",
    description:
      "what would have fired then: a version number (lorecards history) or a date and time (2025-06-01T14:30)",
    valueHint: "VERSION_OR_TIME",
  },
} as const;

/** The copy `--as-of` asks for, or undefined without the flag. */
export function openAsOf(args: { "as-of"?: string; vault?: string; log?: boolean }): AsOfVault | undefined {
  const given = args["as-of"];
  if (given === undefined) return undefined;
  if (args.log) throw new LoreError("usage", "--log records what fires now: it does not go with --as-of");
  const point = parseAsOf(given);
  const asOf = vaultAsOf(openVault(vaultPath(args)), point);
  process.once("exit", asOf.remove);
  return asOf;
}

export function asOfJson(asOf: AsOfVault) {
  return {
    version: asOf.version,
    at: asOf.at,
    from_history: asOf.fromHistory.length,
    absent: asOf.absent,
    estimated: asOf.estimated,
    as_now: asOf.asNow,
  };
}

/** The lines that open `try`'s text answer: which moment, and what the vault of then is made of. */
export function asOfLines(asOf: AsOfVault): string {
  const when = asOf.version === 0 ? "before any recorded version" : `version ${asOf.version} (${asOf.at})`;
  const lines = [
    `As of ${when}: ${asOf.fromHistory.length - asOf.absent.length} card(s) from history, ` +
      `${asOf.asNow} without history taken as they are now.`,
  ];
  if (asOf.absent.length > 0) lines.push(`  not live then: ${asOf.absent.join(", ")}`);
  if (asOf.estimated.length > 0)
    lines.push(`  as before their oldest kept version: ${asOf.estimated.join(", ")}`);
  return `${lines.join("\n")}\n`;
}
