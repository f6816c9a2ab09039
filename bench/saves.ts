/**
 * What a save costs a running server's serving thread, in process: a watching VaultSource (as the
 * gateway and the editor open it, its refresher a no-op here so nothing else runs) is told of one card
 * saved the way an editor saves (a temp file renamed over it), and the next `current()` compares the
 * file, writes its row and compiles the next matcher; then one lookup (the first after the save) and
 * one more. CPU time of this thread (rusage), per save, p50/p99/max, at each size, and the largest
 * size's p50 and p99 as a multiple of the smallest's: nothing a save does may grow with the vault.
 * The saves go round `--files` cards, so the cards changed since the snapshot pile up as they do in a
 * server between two rebuilds of its snapshot.
 *
 *   bun bench/saves.ts [--sizes 1000,100000] [--saves 300] [--files 100] [--vaults DIR]
 */
import path from "node:path";
import { VaultSource } from "../src/recall/source.ts";
import { openVault } from "../src/vault/index.ts";
import { generateCards, sampleWindow } from "./_gen.ts";
import { ms, option, percentile, table } from "./_stats.ts";
import { editCard, vaultsDir, workload } from "./_workload.ts";

const SIZES = option("--sizes", "1000,100000").split(",").map(Number);
const SAVES = Number(option("--saves", "300"));
const FILES = Number(option("--files", "100"));
const vaults = vaultsDir(process.argv.includes("--vaults") ? option("--vaults", "") : undefined);

/** Milliseconds of CPU this process has spent (user + system). */
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Costs {
  save: number[];
  first: number[];
  next: number[];
}

async function measure(size: number): Promise<Costs> {
  const work = workload(vaults, size);
  const cards = generateCards(size);
  const windows = Array.from({ length: 50 }, (_, i) => sampleWindow(cards, i));
  const source = new VaultSource(openVault(work.root), {
    watch: true,
    watcher: false,
    persist: true,
    refresher: async () => {},
  });
  try {
    let compiled = await source.current();
    const lookup = async (i: number) => {
      const { cards: found } = await compiled.loaded.matcher.notice(windows[i % windows.length]!, {
        scanDepth: 2,
      });
      for (const c of found) compiled.loaded.cards.at(c.card);
    };
    for (let i = 0; i < 100; i++) await lookup(i);
    const costs: Costs = { save: [], first: [], next: [] };
    const files = work.cards.slice(0, FILES);
    for (let i = 0; i < SAVES; i++) {
      const file = files[i % files.length]!;
      editCard(file, i);
      source.invalidate([path.relative(work.root, file)]);
      let t = cpu();
      compiled = await source.current();
      costs.save.push(cpu() - t);
      t = cpu();
      await lookup(i);
      costs.first.push(cpu() - t);
      t = cpu();
      await lookup(i + 1);
      costs.next.push(cpu() - t);
    }
    return costs;
  } finally {
    source.close();
  }
}

const spread = (xs: number[]) =>
  `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 99))} / ${ms(Math.max(...xs))}`;
const results = new Map<number, Costs>();
// Every size twice, the second pass kept: the first warms the runtime's compiled code for all.
for (const size of [...SIZES, ...SIZES]) results.set(size, await measure(size));
console.log(`CPU of the serving thread per save (${SAVES} saves over ${FILES} cards), p50 / p99 / max`);
console.log(
  table([
    ["cards", "the save", "the first lookup after it", "the next lookup"],
    ...[...results].map(([size, c]) => [
      size.toLocaleString("en"),
      spread(c.save),
      spread(c.first),
      spread(c.next),
    ]),
  ]),
);
const small = results.get(Math.min(...SIZES))!;
const large = results.get(Math.max(...SIZES))!;
const ratio = (p: number) => (percentile(large.save, p) / percentile(small.save, p)).toFixed(2);
console.log(
  `a save at ${Math.max(...SIZES).toLocaleString("en")} cards ÷ at ${Math.min(...SIZES).toLocaleString("en")}: p50 ${ratio(50)}×, p99 ${ratio(99)}×`,
);
