/**
 * Importing a large SillyTavern book must take seconds, not minutes (figures in bench/README.md).
 *   node_modules/.bin/bun bench/import.ts [entries=10000]
 * Generates a World Info book of N entries, imports it into a fresh temporary vault, then exports it
 * back, and prints the seconds each step took.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { exportBook, importBook } from "../src/interop/index.ts";
import { initVault, openVault } from "../src/vault/index.ts";

function book(n: number): Uint8Array {
  const entries: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    entries[String(i)] = {
      uid: i,
      key: [`place ${i}`, `landmark-${i}`],
      keysecondary: i % 3 === 0 ? [`season ${i % 4}`] : [],
      selectiveLogic: i % 4,
      comment: `Place number ${i}`,
      content: `Place ${i} sits ${i % 17} miles north of the river. `.repeat(6),
      constant: false,
      selective: true,
      order: 100 + (i % 50),
      position: 0,
      disable: i % 10 === 0,
      probability: 100,
      depth: 4,
      scanDepth: i % 2 === 0 ? null : 5,
      group: "",
    };
  }
  return new TextEncoder().encode(JSON.stringify({ entries }));
}

const n = Number(process.argv[2] ?? 10_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
try {
  const root = path.join(dir, "vault");
  initVault(root);
  const vault = openVault(root);
  const bytes = book(n);
  let t = performance.now();
  const result = await importBook(vault, bytes, { filename: "bench-book.json" });
  const importSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const out = await exportBook(vault, "st");
  const exportSeconds = (performance.now() - t) / 1000;
  const mb = (bytes.length / 1024 / 1024).toFixed(1);
  process.stdout.write(
    `import ${n} entries (${mb} MB): ${importSeconds.toFixed(2)} s (created ${result.created})\n`,
  );
  process.stdout.write(`export ${out.cards} cards: ${exportSeconds.toFixed(2)} s\n`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
