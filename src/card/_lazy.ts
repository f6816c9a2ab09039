/**
 * `yaml` and `gray-matter`, loaded on first use. Evaluating them costs ~6 ms of every cold start,
 * and the hook's hot path (warm index, snapshot, render from the body alone) never parses YAML.
 * `require` keeps the call sites synchronous; the bundler evaluates the module only when it runs.
 */
import type GrayMatter from "gray-matter";
import type * as Yaml from "yaml";

let yaml: typeof Yaml | undefined;
let matter: typeof GrayMatter | undefined;

export function yamlLib(): typeof Yaml {
  yaml ??= require("yaml") as typeof Yaml;
  return yaml;
}

export function grayMatter(): typeof GrayMatter {
  matter ??= require("gray-matter") as typeof GrayMatter;
  return matter;
}
