/**
 * re2js, loaded on first use: only a vault with regular-expression keys needs it, and evaluating it
 * would otherwise be part of every cold hook start. `require` keeps the callers synchronous; the
 * bundler evaluates the module only when it runs.
 */
import type * as Re2 from "re2js";

let lib: typeof Re2 | undefined;

export function re2(): typeof Re2 {
  lib ??= require("re2js") as typeof Re2;
  return lib;
}
