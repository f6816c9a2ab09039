import { afterEach } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { makeVault, removeDir } from "./vault.ts";

/**
 * Empty vaults for one test file, with a settings.yaml when given, each removed after its test: call
 * once at the top of the file (it registers the cleanup).
 */
export function emptyVaults(): (settings?: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const v of made.splice(0)) removeDir(v);
  });
  return (settings) => {
    const root = makeVault([]);
    if (settings !== undefined) fs.writeFileSync(path.join(root, "settings.yaml"), settings);
    made.push(root);
    return root;
  };
}
