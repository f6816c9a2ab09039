/**
 * Writes a generated vault for benchmarks and manual testing.
 *
 *   bun bench/gen-vault.ts DIR [COUNT=1000] [--chinese-share 0.2]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cardFile, type GenCard, generateCards } from "./_gen.ts";

export function writeVault(dir: string, count: number, chineseShare = 0.2): void {
  writeCards(dir, generateCards(count, chineseShare));
}

function writeCards(dir: string, cards: readonly GenCard[]): void {
  for (const d of ["people", "events", "places", "things", "slang"])
    mkdirSync(join(dir, d), { recursive: true });
  for (const c of cards) writeFileSync(join(dir, c.dir, `${c.key}.md`), cardFile(c));
}

/** The token of generated tenant `i` (its name is `t${i}`). */
export const tenantToken = (i: number): string => `bench-tenant-${i}-0123456789abcdef`;

/**
 * `count` tenants under `dir` (docs/DEPLOYMENT.md "One process with many tenants"): a vault each,
 * `vaults/tI`, holding `cards`, and `tenants.yaml` naming each with its token's SHA-256 (tokens:
 * `tenantToken`). Returns the file's path.
 */
export function writeTenants(dir: string, count: number, cards: readonly GenCard[]): string {
  const lines = ["tenants:"];
  for (let i = 0; i < count; i++) {
    writeCards(join(dir, "vaults", `t${i}`), cards);
    const sha = new Bun.CryptoHasher("sha256").update(tenantToken(i)).digest("hex");
    lines.push(`  t${i}:`, `    vault: vaults/t${i}`, `    token_sha256: ${sha}`);
  }
  const file = join(dir, "tenants.yaml");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
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
