/**
 * A vault's own YAML files (settings.yaml, style-dictionary.yaml) as plain data, read one way: the
 * core schema (no custom tags), duplicate keys tolerated, aliases capped so a small file cannot expand
 * into a huge one. The `yaml` library is loaded on first use, off a cold start's path. Throws the
 * parser's first error; each caller says what the file was and what happens without it.
 */
import type * as Yaml from "yaml";

export function yamlData(text: string): unknown {
  const yaml = require("yaml") as typeof Yaml;
  const doc = yaml.parseDocument(text, { schema: "core", uniqueKeys: false, logLevel: "error" });
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 100 });
}
