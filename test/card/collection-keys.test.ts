/**
 * A note whose frontmatter has a mapping as a key (a notes app's template, `created: {{date}}`, reads
 * so in YAML) is read without a word on stderr: the YAML library's warning used to print as the
 * runtime's own, "(node:123) Warning: Keys with collection values will be stringified…".
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const vault = tempDir();
afterAll(() => fs.rmSync(vault, { recursive: true, force: true }));
fs.mkdirSync(path.join(vault, "Notes"));
fs.writeFileSync(
  path.join(vault, "Notes", "Character.md"),
  "---\ncreated: {{date:YYYY-MM-DD}}\n---\n# {{title}}\n",
);

test.each([
  ["read", ["read", "Notes/Character", "--json"]],
  ["try", ["try", "character"]],
  ["check", ["check"]],
])("%s says nothing on stderr of the YAML library's own", (_name, args) => {
  const run = Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", vault], {
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.stderr.toString()).not.toContain("Warning:");
  expect(run.stderr.toString()).not.toContain("trace-warnings");
});
