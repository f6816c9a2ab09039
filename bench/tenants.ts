/**
 * One gateway, many tenants (docs/DEPLOYMENT.md "One process with many tenants"): what 1,000 tenants
 * cost one process, measured on the compiled binary against an instant upstream. Every tenant has a
 * vault of `--cards` generated cards of its own (its index built once beforehand, as a tenant's vault
 * would be after its first use) and a token; each request is a new conversation naming three of its
 * cards.
 *   1. RSS of the gateway with no tenant open, with one open, and with every tenant open (one request
 *      each): what an open tenant costs, as a share of one single-vault gateway over the same vault;
 *   2. the same pass with `--tenants-open CAP`: the resident memory stays that of CAP open tenants
 *      however many are served (the ratio to CAP tenants all open);
 *   3. with `--tenant-idle 2`, RSS after the tenants went idle and were closed;
 *   4. requests a second and p99 latency over all tenants in turn, as a ratio to the same requests to
 *      one tenant (a warm one): what finding and opening a tenant per request adds.
 *
 *   bun bench/tenants.ts [--tenants 1000] [--cards 40] [--cap 100] [--requests 2000] [--source]
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type GenCard, generateCards, sampleWindow } from "./_gen.ts";
import { mb, ms, option, percentile, ratio, rssOf, table } from "./_stats.ts";
import { tenantToken, writeTenants } from "./gen-vault.ts";

const ROOT = path.resolve(import.meta.dir, "..");
const TENANTS = Number(option("--tenants", "1000"));
const CARDS = Number(option("--cards", "40"));
const CAP = Number(option("--cap", "100"));
const REQUESTS = Number(option("--requests", "2000"));
const CONCURRENCY = 16;
const bin = path.join(ROOT, "dist", "lorecards");
const cmd =
  existsSync(bin) && !process.argv.includes("--source")
    ? [bin]
    : [process.execPath, path.join(ROOT, "src/main.ts")];

const work = mkdtempSync(path.join(tmpdir(), "lc-bench-tenants-"));
const cards = generateCards(CARDS, 0);

/** Each tenant's index and matcher built once, as a vault in use has them. */
function indexAll(): void {
  for (let i = 0; i < TENANTS; i++) {
    const r = Bun.spawnSync([...cmd, "refresh", "--vault", path.join(work, "vaults", `t${i}`)], {
      stdout: "ignore",
    });
    if (r.exitCode !== 0) throw new Error(`refresh of tenant ${i} failed`);
  }
}

const upstream = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    await req.arrayBuffer();
    return Response.json({
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Noted." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 100, completion_tokens: 2, total_tokens: 102 },
    });
  },
});

interface Gateway {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function startGateway(args: string[]): Promise<Gateway> {
  const proc = Bun.spawn(
    [
      ...cmd,
      "gateway",
      "--upstream",
      upstream.url.href,
      "--port",
      "0",
      "--json",
      "--no-log",
      "--no-learn",
      ...args,
    ],
    {
      stdout: "pipe",
      stderr: "ignore",
    },
  );
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the gateway did not start: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = (JSON.parse(out.split("\n")[0]!) as { url: string }).url;
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  return { url, pid: proc.pid, stop };
}

let seed = 0;
function body(): string {
  const messages = sampleWindow(cards as GenCard[], seed++).map((content, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content,
  }));
  return JSON.stringify({
    model: "m",
    messages: [{ role: "system", content: "You are a friend." }, ...messages],
  });
}

async function chat(gw: Gateway, tenant: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-lorecards-token": tenantToken(tenant),
      "x-lorecards-conversation": `c${seed}`,
    },
    body: body(),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`tenant ${tenant}: ${res.status}`);
  return performance.now() - t0;
}

/** `count` requests, `CONCURRENCY` at a time, the i-th to tenant `pick(i)`: rate and latencies. */
async function pass(gw: Gateway, count: number, pick: (i: number) => number) {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) latencies.push(await chat(gw, pick(next++)));
    }),
  );
  return {
    rate: count / ((performance.now() - t0) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

const settle = () => Bun.sleep(1500);

try {
  console.log(
    `tenants: ${TENANTS} tenants of ${CARDS} cards each, one gateway (${cmd[0] === bin ? "compiled" : "from source"})`,
  );
  const file = writeTenants(work, TENANTS, cards);
  indexAll();

  const single = await startGateway(["--vault", path.join(work, "vaults", "t0")]);
  await pass(single, 20, () => 0);
  await settle();
  const singleRss = rssOf(single.pid);
  await single.stop();

  const gw = await startGateway(["--tenants", file, "--tenant-idle", "3600"]);
  await settle();
  const none = rssOf(gw.pid);
  await pass(gw, 20, () => 0);
  await settle();
  const one = rssOf(gw.pid);
  await pass(gw, TENANTS, (i) => i);
  await settle();
  const all = rssOf(gw.pid);
  const spread = await pass(gw, REQUESTS, (i) => i % TENANTS);
  const warm = await pass(gw, REQUESTS, () => 0);
  await settle();
  const afterLoad = rssOf(gw.pid);
  await gw.stop();

  const capped = await startGateway([
    "--tenants",
    file,
    "--tenants-open",
    String(CAP),
    "--tenant-idle",
    "3600",
  ]);
  await pass(capped, CAP, (i) => i);
  await settle();
  const capOpen = rssOf(capped.pid);
  const churn = await pass(capped, TENANTS * 2, (i) => i % TENANTS);
  await settle();
  const capAll = rssOf(capped.pid);
  await capped.stop();

  const idle = await startGateway(["--tenants", file, "--tenant-idle", "2"]);
  await pass(idle, TENANTS, (i) => i);
  const busy = rssOf(idle.pid);
  await Bun.sleep(6000);
  const idled = rssOf(idle.pid);
  await idle.stop();

  const perTenant = (all - none) / TENANTS;
  console.log(
    table([
      ["figure", "measured"],
      ["one gateway over one tenant's vault", mb(singleRss)],
      ["gateway of tenants, none open", mb(none)],
      ["  one tenant open", `${mb(one)} (+${mb(one - none)})`],
      [
        `  all ${TENANTS} open`,
        `${mb(all)}: ${mb(perTenant)} a tenant, ${ratio(perTenant, singleRss)} of one gateway`,
      ],
      [`  after ${REQUESTS * 2} more requests`, mb(afterLoad)],
      [`--tenants-open ${CAP}: ${CAP} tenants served`, mb(capOpen)],
      [`  all ${TENANTS} served twice`, `${mb(capAll)} = ${ratio(capAll, capOpen)} of ${CAP} open`],
      [
        "  requests, each opening its tenant",
        `${churn.rate.toFixed(0)}/s, p99 ${ms(churn.p99)} (${ratio(churn.rate, warm.rate)} of one warm tenant's rate)`,
      ],
      [`--tenant-idle 2: all ${TENANTS} open`, mb(busy)],
      ["  6 s later, all closed", `${mb(idled)} = ${ratio(idled - none, busy - none)} of what they held`],
      [
        `requests to all ${TENANTS} in turn`,
        `${spread.rate.toFixed(0)}/s, p50 ${ms(spread.p50)}, p99 ${ms(spread.p99)}`,
      ],
      ["  the same to one tenant", `${warm.rate.toFixed(0)}/s, p50 ${ms(warm.p50)}, p99 ${ms(warm.p99)}`],
      ["  ratio (all / one)", `rate ${ratio(spread.rate, warm.rate)}, p99 ${ratio(spread.p99, warm.p99)}`],
    ]),
  );
} finally {
  upstream.stop(true);
  rmSync(work, { recursive: true, force: true });
}
