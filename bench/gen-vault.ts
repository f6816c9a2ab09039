/**
 * Writes a generated vault for benchmarks and manual testing.
 *
 *   bun bench/gen-vault.ts DIR [COUNT=1000] [--chinese-share 0.2]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cardFile, generateCards } from "./_gen.ts";

export function writeVault(dir: string, count: number, chineseShare = 0.2): void {
  for (const d of ["people", "events", "places", "things", "slang"])
    mkdirSync(join(dir, d), { recursive: true });
  for (const c of generateCards(count, chineseShare))
    writeFileSync(join(dir, c.dir, `${c.key}.md`), cardFile(c));
}

if (import.meta.main) {
  const [dir, count = "1000"] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const share = process.argv.indexOf("--chinese-share");
  if (!dir) {
    console.error("usage: bun bench/gen-vault.ts DIR [COUNT] [--chinese-share 0.2]");
    process.exit(2);
  }
  const started = performance.now();
  writeVault(dir, Number(count), share > 0 ? Number(process.argv[share + 1]) : 0.2);
  console.log(`${count} cards written to ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
