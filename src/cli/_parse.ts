/**
 * A command's arguments without citty, for the argv every script and hook writes: known flags each
 * given once, `--flag value` or `--flag=value`, `--bool` or `--no-bool`, and the positionals the
 * command takes. Anything else (a repeated flag, a value that starts with a dash, `--`, a short flag,
 * a missing required argument, a value outside an enum) is undefined here, and citty parses it as
 * before, with its own errors. Loading citty and the node:util it needs costs about 1 ms of every cold
 * start (bench/README.md, "Start-up"); citty still does help, which it renders.
 */
import type { ArgsDef } from "citty";

type Parsed = Record<string, string | boolean | undefined>;

/** The parsed arguments, as citty would give them, or undefined when citty must decide. */
export function simpleArgs(def: ArgsDef, argv: readonly string[]): Parsed | undefined {
  const positionals = Object.entries(def).filter(([, d]) => d.type === "positional");
  const given: Parsed = {};
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith("-")) {
      values.push(token);
      continue;
    }
    if (!token.startsWith("--") || token === "--") return undefined;
    const eq = token.indexOf("=");
    // citty reads any `--no-x` as x = false before it parses the rest.
    const negated = token.startsWith("--no-");
    const name = token.slice(negated ? 5 : 2, eq < 0 ? undefined : eq);
    const d = Object.hasOwn(def, name) ? def[name] : undefined;
    if (!d || d.type === undefined || d.type === "positional" || Object.hasOwn(given, name)) return undefined;
    let value: string | boolean;
    if (d.type === "boolean") {
      if (eq >= 0) return undefined;
      value = !negated;
    } else {
      if (negated) return undefined;
      if (eq >= 0) value = token.slice(eq + 1);
      else {
        const next = argv[++i];
        if (next === undefined || next.startsWith("-")) return undefined;
        value = next;
      }
    }
    given[name] = value;
  }
  if (values.length > positionals.length) return undefined;
  const out: Parsed = {};
  for (const [name, d] of Object.entries(def)) {
    const value = d.type === "positional" ? values[positionals.findIndex(([n]) => n === name)] : given[name];
    const resolved = value ?? (d.default as string | boolean | undefined);
    if (resolved === undefined && d.required === true) return undefined;
    if (d.type === "positional" && resolved === undefined && d.required !== false) return undefined;
    if (d.type === "enum" && resolved !== undefined && !(d.options ?? []).includes(resolved as string))
      return undefined;
    out[name] = resolved;
  }
  return out;
}
