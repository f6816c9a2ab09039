// The README's install (`npm install`, about 300 MB) is for someone who wants the editor: the real
// clients the end-to-end tests drive (about 1.8 GB) are test/package.json's, installed on purpose by
// `npm run test:clients`. The root lockfile, which is what `npm install` and `npm ci` fetch, holds
// none of them, so no change to the root dependencies can bring them back without this failing.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");
const json = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));

/** The clients' package names (an `npm:name@x` alias read as the package it installs). */
const CLIENTS = Object.entries(json("test/package.json").devDependencies as Record<string, string>).map(
  ([name, spec]) => (spec.startsWith("npm:") ? spec.slice(4, spec.lastIndexOf("@")) : name),
);

describe("the README's install", () => {
  test("the test clients are named, and locked in a lockfile of their own", () => {
    expect(CLIENTS).toContain("@anthropic-ai/claude-code");
    expect(CLIENTS).toContain("@openai/codex");
    const locked = json("test/package-lock.json").packages as Record<string, unknown>;
    expect(CLIENTS.filter((c) => !(`node_modules/${c}` in locked))).toEqual([]);
  });

  test("fetches none of them", () => {
    const root = json("package.json") as Record<string, Record<string, string> | undefined>;
    const declared = Object.keys({
      ...root.dependencies,
      ...root.devDependencies,
      ...root.optionalDependencies,
    });
    expect(CLIENTS.filter((c) => declared.includes(c))).toEqual([]);
    const locked = Object.keys(json("package-lock.json").packages as Record<string, unknown>);
    expect(
      locked.filter((p) =>
        CLIENTS.some((c) => p === `node_modules/${c}` || p.endsWith(`/node_modules/${c}`)),
      ),
    ).toEqual([]);
  });
});
