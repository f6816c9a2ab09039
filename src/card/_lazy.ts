/**
 * `yaml`, loaded on first use. Evaluating it costs milliseconds of every cold start, and the hook's hot
 * path (warm index, snapshot, render from the body alone) never parses YAML. `require` keeps the call
 * sites synchronous; the bundler evaluates the module only when it runs.
 */
import type * as Yaml from "yaml";

let yaml: typeof Yaml | undefined;

export function yamlLib(): typeof Yaml {
  yaml ??= require("yaml") as typeof Yaml;
  return yaml;
}
