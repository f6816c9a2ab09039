/**
 * What the gateway's memory is made of over many injecting requests, and whether any of it grows.
 * gateway.ts samples the compiled gateway's RSS as an operator sees it, collector swings and all; this
 * script runs the gateway in process (the source), so that it can ask the runtime after a full
 * collection: RSS, the JavaScript heap's objects, the memory outside the heap it counts (jieba's
 * WebAssembly memory, buffers), and the process's resident pages by kind (/proc/self/smaps_rollup:
 * file pages are the runtime and mapped files, anonymous pages everything allocated). Every tenth of
 * `--requests` injecting requests (each a new conversation, 16 at a time over 127.0.0.1, the upstream
 * answered in process) it samples once as the load left it and once after `Bun.gc(true)`. What the
 * process holds is flat when the samples after collection are; what RSS adds above them is garbage
 * waiting for a collection and the allocator's free pages.
 *
 *   bun bench/gateway-memory.ts [--cards 1000] [--requests 20000] [--vaults DIR]
 */

import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import { startGateway } from "../src/gateway/index.ts";
import { generateCards, sampleWindow } from "./_gen.ts";
import { mb, option, table } from "./_stats.ts";
import { vaultsDir, workload } from "./_workload.ts";

const CARDS = Number(option("--cards", "1000"));
const REQUESTS = Number(option("--requests", "20000"));
const CONCURRENCY = 16;
const MB = 1024 * 1024;

/** Resident pages by kind, in bytes (Linux; NaN elsewhere). */
function resident(): { anon: number; file: number } {
  try {
    const text = readFileSync("/proc/self/smaps_rollup", "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1]) * 1024;
    return { anon: kb("Anonymous"), file: kb("Rss") - kb("Anonymous") };
  } catch {
    return { anon: Number.NaN, file: Number.NaN };
  }
}

interface Sample {
  rss: number;
  /** The heap's objects: JavaScriptCore's heap size less the memory outside it that it counts. */
  objects: number;
  outside: number;
  anon: number;
  file: number;
}

function sample(collect: boolean): Sample {
  if (collect) Bun.gc(true);
  const h = heapStats();
  const pages = resident();
  return {
    rss: process.memoryUsage().rss / MB,
    objects: (h.heapSize - h.extraMemorySize) / MB,
    outside: h.extraMemorySize / MB,
    anon: pages.anon / MB,
    file: pages.file / MB,
  };
}

const w = workload(vaultsDir(option("--vaults", "") || undefined), CARDS);
const cards = generateCards(CARDS, 0.2);
const answer = JSON.stringify({
  id: "c",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "Sure." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 120, completion_tokens: 3, total_tokens: 123 },
});
const upstream = (async () =>
  new Response(answer, { headers: { "content-type": "application/json" } })) as unknown as typeof fetch;
const gateway = startGateway({
  vaultRoot: w.root,
  upstream: "http://127.0.0.1:9",
  port: 0,
  log: false,
  fetch: upstream,
  warn: () => {},
});
const url = `${gateway.url}/v1/chat/completions`;
const body = (i: number) =>
  JSON.stringify({
    model: "m",
    messages: [
      { role: "system", content: "You are a friend." },
      ...sampleWindow(cards, i).map((content, k) => ({ role: k % 2 === 0 ? "user" : "assistant", content })),
    ],
  });

let sent = 0;
let injected = 0;
async function requests(count: number): Promise<void> {
  const end = sent + count;
  const client = async () => {
    while (sent < end) {
      const i = sent++;
      const res = await fetch(url, {
        method: "POST",
        body: body(i),
        headers: { "content-type": "application/json", "x-lorecards-conversation": `memory-${i}` },
      });
      await res.arrayBuffer();
      if (res.headers.has("x-lorecards-injected")) injected++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
}

console.log(
  `gateway memory in process, ${CARDS.toLocaleString("en")} cards, ${REQUESTS.toLocaleString("en")} injecting requests`,
);
await requests(200); // the index and the matcher loaded, jieba's dictionary built
const step = Math.max(1, Math.floor(REQUESTS / 10));
const rows: string[][] = [
  ["requests", "RSS as left", "RSS collected", "heap objects", "outside the heap", "anonymous", "file pages"],
];
const collected: Sample[] = [];
for (let done = 0; done < REQUESTS; done += step) {
  await requests(step);
  const left = sample(false);
  const after = sample(true);
  collected.push(after);
  rows.push([
    String(done + step),
    mb(left.rss),
    mb(after.rss),
    mb(after.objects),
    mb(after.outside),
    mb(after.anon),
    mb(after.file),
  ]);
}
console.log(table(rows));
const half = Math.floor(collected.length / 2);
const mean = (xs: readonly Sample[], key: keyof Sample) => xs.reduce((s, x) => s + x[key], 0) / xs.length;
for (const key of ["objects", "rss"] as const) {
  const first = mean(collected.slice(0, half), key);
  const second = mean(collected.slice(half), key);
  console.log(
    `${key === "objects" ? "heap objects" : "RSS"} after a full collection, second half ÷ first half: ` +
      `${(second / first).toFixed(3)} (${mb(first)} → ${mb(second)})`,
  );
}
console.log(`${injected}/${sent} requests injected`);
await gateway.close();
process.exit(0);
