/**
 * Gateway benchmarks, 127.0.0.1 only, every loop bounded. The gateway runs as its own process
 * (dist/lorecards when it exists, else `bun src/main.ts`; `--source` forces the latter), in front of
 * a fake upstream that answers at once. Its floor, measured in the same run, is a bare Bun proxy: a
 * few lines of Bun.serve + fetch forwarding to the same upstream (BARE_PROXY in _servers.ts), which is what
 * any proxy written on this runtime costs.
 *
 *   1. request rate at 32 concurrent connections, the gateway and the bare proxy measured in turns
 *      (`--rounds` of `--seconds` each, medians), with bodies that fire cards (every request injects,
 *      each a new conversation, so each one commits its state) and with one that names no card; and
 *      the CPU each process spent per request;
 *   1b. the same turns behind an upstream that answers in 50 ms, at 64 connections: the gateway's
 *      rate against the upstream's own;
 *   2. added time to first byte and to the end (p50/p99 of the bare proxy and of the gateway minus
 *      direct to the upstream), one request at a time, the three interleaved;
 *   3. RSS of the gateway over twice `--rss-requests` injecting requests, at each of `--sizes` cards:
 *      the first fill what it keeps within bounds, and whether it grows is judged over the second;
 *   4. at the largest size, added latency while another process saves a card every 100 ms (a temp
 *      file renamed over the card, as an editor saves), and the gateway's CPU per request then against
 *      the same requests without saves;
 *   5. prefix stability over a scripted 30-turn conversation, replay vs plain per-turn injection;
 *   6. a fresh gateway, warm on English, meets its first Chinese: how long requests sent beside it,
 *      one at a time, wait while jieba loads (a server loads it on a thread of its own);
 *   7. conversations as they grow: the CPU a request costs late in a long conversation against early
 *      in it, the gateway's and the bare proxy's, one request at a time.
 *
 *   bun bench/gateway.ts [--sizes 1000,100000] [--seconds 2] [--rounds 3] [--requests 400]
 *                        [--rss-requests 10000] [--edit-seconds 10] [--warm 10000] [--vaults DIR] [--source]
 *
 * The rates are a long-running gateway's: each server first answers at least `--warm` requests of the
 * row's bodies, and then more until the runtime's JIT has gone quiet (_servers.ts `warmUp`: a fresh
 * gateway spends about as much CPU compiling as serving over its first few thousand requests, and
 * keeps recompiling for tens of thousands); what those first requests cost, and how many there were,
 * is printed beside the rates.
 *
 * Generated vaults live under `--vaults DIR` (shared with the other scripts by bench/run.ts) or a
 * temp directory; a 100k-card vault takes a while to write and to index the first time.
 */

import { LIMITS } from "../src/state/index.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import { whileEditing } from "./_editing.ts";
import { type GenCard, generateCards, sampleWindow } from "./_gen.ts";
import { type GoalRow, reportGoals } from "./_goals.ts";
import { prefixStability } from "./_prefix-stability.ts";
import {
  added,
  load,
  measureInTurns,
  memoryOf,
  once,
  type Sample,
  type Server,
  samplesOf,
  startBareProxy,
  startGateway as startGatewayOn,
  type Target,
  target,
  type Via,
} from "./_servers.ts";
import { cpuSecondsOf, mb, ms, option, percentile, table } from "./_stats.ts";
import { vaultsDir, workload } from "./_workload.ts";

const SIZES = option("--sizes", "1000,100000").split(",").map(Number);
const SECONDS = Number(option("--seconds", "2"));
const ROUNDS = Number(option("--rounds", "3"));
const REQUESTS = Number(option("--requests", "400"));
const RSS_REQUESTS = Number(option("--rss-requests", "10000"));
const EDIT_SECONDS = Number(option("--edit-seconds", "10"));
const WARM = Number(option("--warm", "10000"));
const CONCURRENCY = 32;
/** Connections of the row behind a slow upstream, and how slow it is. */
const SLOW = { concurrency: 64, delayMs: 50 } as const;

const GOAL = {
  injecting: 0.5,
  noCard: 0.8,
  slow: 0.9,
  ttfbOverBareMs: 0.5,
  rssMB: 150,
  flatShare: 0.1,
  editP99: 5,
} as const;

const startGateway = (vault: string, upstream: string) =>
  startGatewayOn(vault, upstream, process.argv.includes("--source"));

/**
 * A chat of three turns naming three cards of `cards` (which cards depends on `seed`), in Chinese if
 * asked. Its first message carries the seed: a conversation is known by its system prompt and first
 * message, and with the same first message every body was one conversation, its history rewritten by
 * each request and its ledger grown to the cap of replay records, read and parsed whole each time,
 * not the new conversation a request is meant to be here.
 */
function chatBody(cards: readonly GenCard[], seed: number, stream = false, chinese = false): string {
  const messages = sampleWindow(cards, seed, chinese).map((content, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: i === 0 ? `${content} (${seed})` : content,
  }));
  return JSON.stringify({
    model: "m",
    messages: [{ role: "system", content: "You are a friend." }, ...messages],
    stream,
  });
}

/** A chat that names no card: nothing to inject and, for a new conversation, nothing to store. */
const QUIET_BODY = JSON.stringify({
  model: "m",
  messages: [
    { role: "system", content: "You are a friend." },
    { role: "user", content: "good morning, how are you today?" },
  ],
});

/**
 * How many distinct chats the load sends, in a cycle: four times the store's conversation cap, so a
 * chat comes round again only once its conversation was dropped, and each request opens a new one.
 */
const CHATS = 4 * LIMITS.conversations;
const chatsOf = (cards: readonly GenCard[]) => Array.from({ length: CHATS }, (_, i) => chatBody(cards, i));

const pct = (x: number, digits = 0) => `${(x * 100).toFixed(digits)}%`;
const median = (xs: number[]) => percentile(xs, 50);
const goals: GoalRow[] = [];

/** Prints the figure on a line of its own with its goal, and keeps it for the goal table. */
function figure(row: GoalRow, line: string): void {
  console.log(`${line} (goal ${row.goal})${row.met === false ? ": MISSED" : ""}`);
  goals.push(row);
}

const perRequest = (t: Target) => (t.server.pid === undefined ? "-" : ms((t.cpu / t.done) * 1000));
/** The CPU a request of the warm-up cost, and how many there were. */
const warmedUp = (t: Target) =>
  t.server.pid === undefined
    ? "-"
    : `${ms((t.warm.cpu / t.warm.done) * 1000)} (first ${t.warm.done}${t.warm.settled === false ? ", JIT still busy" : ""})`;

/** Section 1: the gateway's request rate as a share of the bare proxy's, with the same bodies. */
async function rates(gateway: Server, bare: Server, chats: readonly string[]): Promise<void> {
  const rows = [
    { label: "name cards (each a new conversation)", figure: "rate injecting", goal: GOAL.injecting },
    { label: "name no card", figure: "rate no-card", goal: GOAL.noCard },
  ].map((row, i) => {
    const bodies = i === 0 ? chats : [QUIET_BODY];
    return { ...row, bare: target(bare, bodies), gateway: target(gateway, bodies) };
  });
  await measureInTurns(
    rows.flatMap((r) => [r.bare, r.gateway]),
    { rounds: ROUNDS, seconds: SECONDS, concurrency: CONCURRENCY, warm: WARM },
  );
  console.log(
    `1. request rate, ${CONCURRENCY} connections, instant upstream, median of ${ROUNDS} rounds of ${SECONDS} s`,
  );
  console.log(
    table([
      ["bodies", "bare proxy", "gateway", "share", "CPU/request: bare", "gateway", "warm-up", "injected"],
      ...rows.map((r) => [
        r.label,
        `${median(r.bare.rates).toFixed(0)}/s`,
        `${median(r.gateway.rates).toFixed(0)}/s`,
        pct(median(r.gateway.rates) / median(r.bare.rates)),
        perRequest(r.bare),
        perRequest(r.gateway),
        warmedUp(r.gateway),
        `${r.gateway.injected}/${r.gateway.done}`,
      ]),
    ]),
  );
  for (const r of rows) {
    const share = median(r.gateway.rates) / median(r.bare.rates);
    figure(
      {
        figure: `gateway ${r.figure}`,
        value: `${pct(share)} of the bare proxy (CPU/request ${perRequest(r.gateway)}, bare ${perRequest(r.bare)})`,
        goal: `≥ ${pct(r.goal)}`,
        met: share >= r.goal,
      },
      `${r.figure}: ${pct(share)} of bare proxy`,
    );
  }
}

/**
 * Section 1b: behind an upstream that takes 50 ms to answer, as a model does (a real one takes
 * longer), at 64 connections: the gateway's rate as a share of the upstream's own, asked directly.
 */
async function ratesBehindSlowUpstream(vault: string, chats: readonly string[]): Promise<void> {
  const slow = startFakeUpstream({ reply: () => "That sounds lovely.", delayMs: SLOW.delayMs });
  slow.received.push = () => 0;
  const gateway = await startGateway(vault, slow.url);
  try {
    const direct = target({ url: slow.url }, chats);
    const through = target(gateway, chats);
    await measureInTurns([direct, through], {
      rounds: ROUNDS,
      seconds: SECONDS,
      concurrency: SLOW.concurrency,
      warm: WARM,
    });
    const share = median(through.rates) / median(direct.rates);
    console.log(
      `\n1b. request rate behind a ${SLOW.delayMs} ms upstream, ${SLOW.concurrency} connections, bodies that name cards`,
    );
    console.log(
      table([
        ["direct", "gateway", "share", "gateway CPU/request", "warm-up", "injected"],
        [
          `${median(direct.rates).toFixed(0)}/s`,
          `${median(through.rates).toFixed(0)}/s`,
          pct(share),
          perRequest(through),
          warmedUp(through),
          `${through.injected}/${through.done}`,
        ],
      ]),
    );
    figure(
      {
        figure: `gateway rate behind a ${SLOW.delayMs} ms upstream, ${SLOW.concurrency} connections`,
        value: `${pct(share)} of direct`,
        goal: `≥ ${pct(GOAL.slow)}`,
        met: share >= GOAL.slow,
      },
      `rate behind a ${SLOW.delayMs} ms upstream: ${pct(share)} of direct`,
    );
  } finally {
    await gateway.stop();
    await slow.close();
  }
}

const injectedOf = (samples: Sample[]) => `${samples.filter((s) => s.injected).length}/${samples.length}`;

/**
 * Section 2: added time to first byte and to the end, the bare proxy's and the gateway's, against
 * the upstream asked directly, one request at a time, interleaved.
 */
async function latency(bases: Record<Via, string>, cards: readonly GenCard[]): Promise<void> {
  console.log(`\n2. added latency, one request at a time, ${REQUESTS} requests, ${cards.length} cards`);
  const rows: string[][] = [
    [
      "body",
      "TTFB added p50: bare",
      "gateway",
      "TTFB added p99: bare",
      "gateway",
      "total added p50",
      "injected",
    ],
  ];
  for (const stream of [false, true]) {
    await samplesOf(bases, (i) => chatBody(cards, i, stream), { count: 40 });
    const s = await samplesOf(bases, (i) => chatBody(cards, i + 40, stream), { count: REQUESTS });
    const [bare50, gw50] = [added(s, "bare", 50, "ttfb"), added(s, "gateway", 50, "ttfb")];
    rows.push([
      stream ? "stream" : "json",
      ms(bare50),
      ms(gw50),
      ms(added(s, "bare", 99, "ttfb")),
      ms(added(s, "gateway", 99, "ttfb")),
      ms(added(s, "gateway", 50, "total")),
      injectedOf(s.gateway!),
    ]);
    if (stream) continue;
    const over = gw50 - bare50;
    figure(
      {
        figure: "gateway added TTFB p50, injecting, over the bare proxy's",
        value: `+${ms(over)} (gateway ${ms(gw50)}, bare ${ms(bare50)} over direct)`,
        goal: `≤ +${GOAL.ttfbOverBareMs} ms`,
        met: over <= GOAL.ttfbOverBareMs,
      },
      `added TTFB p50 ${ms(gw50)} against the bare proxy's ${ms(bare50)}: +${ms(over)}`,
    );
  }
  console.log(table(rows));
}

/**
 * Section 3 at one size: RSS after the gateway's first request (the vault indexed and loaded), then
 * after every tenth of `RSS_REQUESTS` injecting requests, twice over. A collector lets RSS swing by
 * tens of MB between two samples, so growth is the median of the second window's second half against
 * the median of its first half (the first window is the caches filling): "flat" is at most 10% more.
 */
async function rssAfterRequests(gateway: Server, cards: readonly GenCard[]): Promise<void> {
  const chats = chatsOf(cards);
  const t0 = performance.now();
  await once(gateway.url, chats[0]!);
  const loaded = memoryOf(gateway.pid).rss;
  console.log(`  first request (opens the index): ${ms(performance.now() - t0)}, RSS ${mb(loaded)}`);
  const step = Math.max(1, Math.floor(RSS_REQUESTS / 10));
  // The first `--rss-requests` fill what the gateway keeps within bounds (the kept ledgers and texts,
  // SQLite's page cache, the JIT's code); whether memory grows with time is judged over the next as
  // many, once they are full: a 60,000-request run levelled off at 225-245 MB after its first 10,000.
  const marksOf = async () => {
    const marks: number[] = [];
    const r = await load(gateway.url, chats, { count: RSS_REQUESTS, concurrency: CONCURRENCY }, (done) => {
      if (done % step === 0) marks.push(memoryOf(gateway.pid).rss);
    });
    return { marks, r };
  };
  const filling = await marksOf();
  console.log(
    `  RSS every ${step} requests, filling: ${filling.marks.map((x) => x.toFixed(0)).join(" ")} MB`,
  );
  const { marks, r } = await marksOf();
  const { rss, peak } = memoryOf(gateway.pid);
  console.log(`  RSS every ${step} requests, then: ${marks.map((x) => x.toFixed(0)).join(" ")} MB`);
  const half = Math.ceil(marks.length / 2);
  const before = median(marks.slice(0, half));
  const growth = median(marks.slice(half)) - before;
  const flat = growth <= GOAL.flatShare * before;
  const size = cards.length;
  const grew = `${growth >= 0 ? "+" : ""}${mb(growth)} from the first half to the second`;
  figure(
    {
      figure: `gateway RSS after ${filling.r.done + r.done} requests`,
      cards: size,
      value: `${mb(rss)} (peak ${mb(peak)}; ${grew})`,
      goal: size >= 100_000 ? `≤ ${GOAL.rssMB} MB and flat` : "flat",
      met: flat && (size < 100_000 || rss <= GOAL.rssMB),
    },
    `gateway RSS at ${size.toLocaleString("en")} cards after ${filling.r.done + r.done} requests: ${mb(rss)}, ` +
      `peak ${mb(peak)}, ${grew} of the last ${r.done} (${r.injected}/${r.done} injected, ${r.perSecond.toFixed(0)}/s)`,
  );
}

/**
 * Section 4: added latency while a card is saved every 100 ms, the way an editor saves; and, the
 * steadier figure on a loaded machine, the gateway's CPU per request then against the same requests
 * without saves just before (_editing.ts).
 */
async function latencyWhileEditing(
  gateway: Server,
  direct: string,
  cards: readonly GenCard[],
  files: readonly string[],
): Promise<void> {
  const body = (i: number) => chatBody(cards, i);
  const { quiet, saving, edits } = await whileEditing(gateway, direct, files, body, EDIT_SECONDS);
  const s = saving.samples;
  const r = {
    p50: added(s, "gateway", 50, "total"),
    p99: added(s, "gateway", 99, "total"),
    samples: s.gateway!.length,
  };
  const without = `p99 ${ms(added(quiet.samples, "gateway", 99, "total"))}, p50 ${ms(added(quiet.samples, "gateway", 50, "total"))}`;
  figure(
    {
      figure: "gateway p99 added latency while cards are edited",
      cards: cards.length,
      value: `${ms(r.p99)} (p50 ${ms(r.p50)}; ${r.samples} requests, ${edits} edits)`,
      goal: `≤ ${GOAL.editP99} ms`,
      met: r.p99 <= GOAL.editP99,
    },
    `p99 added latency at ${cards.length.toLocaleString("en")} cards, a card saved every 100 ms: ${ms(r.p99)} ` +
      `(p50 ${ms(r.p50)}; ${r.samples} requests in ${EDIT_SECONDS} s, ${edits} edits; without saves ${without})`,
  );
  // A stall that comes every few hundred requests (a -wal file cut back on the serving thread was one:
  // 20 ms every 465) is under the p99 of one request at a time, and holds up every request in flight.
  const longest = (run: typeof quiet) => {
    const totals = run.samples.gateway!.map((x) => x.total);
    return `p99.9 ${ms(percentile(totals, 99.9))}, longest ${ms(Math.max(...totals))}`;
  };
  console.log(`  the gateway's slowest requests: while saving ${longest(saving)}; without ${longest(quiet)}`);
  console.log(
    `  gateway CPU per request: ${ms(saving.own)} while saving, ${ms(quiet.own)} without ` +
      `(${(saving.own / quiet.own).toFixed(2)}×); refresh processes: ${saving.children.toFixed(2)} s of CPU ` +
      `while saving, ${quiet.children.toFixed(2)} s without`,
  );
}

/**
 * Section 6: a fresh gateway on `vault`, warm on conversations whose cards are all English, meets
 * conversations about Chinese cards, whose word boundaries load jieba; meanwhile other requests go
 * one at a time, beside them. Their longest wait is what jieba's load costs everyone else.
 */
async function besideFirstChinese(vault: string, upstream: string, cards: readonly GenCard[]): Promise<void> {
  const han = /\p{Script=Han}/u;
  const english = cards.filter((c) => !han.test(c.title));
  const chinese = cards.filter((c) => han.test(c.title));
  const gateway = await startGateway(vault, upstream);
  try {
    for (let i = 0; i < 300; i++) await once(gateway.url, chatBody(english, i));
    let going = true;
    const beside: number[] = [];
    const side = (async () => {
      for (let i = 1000; going; i++) beside.push((await once(gateway.url, chatBody(english, i))).total);
    })();
    const first: number[] = [];
    for (let i = 0; i < 20; i++)
      first.push((await once(gateway.url, chatBody(chinese, i, false, true))).total);
    going = false;
    await side;
    console.log(
      `\n6. a fresh gateway's first Chinese (${cards.length.toLocaleString("en")} cards): the slowest of 20 ` +
        `Chinese conversations ${ms(Math.max(...first))}; ${beside.length} requests beside them, ` +
        `one at a time: the longest waited ${ms(Math.max(...beside))} (median ${ms(median(beside))})`,
    );
  } finally {
    await gateway.stop();
  }
}

const vaults = vaultsDir(process.argv.includes("--vaults") ? option("--vaults", "") : undefined);
const upstream = startFakeUpstream({ reply: () => "That sounds lovely, tell me more about it." });
upstream.received.push = () => 0; // keep memory flat: nothing here reads what the upstream received
const servers: Server[] = [];
/** Section 7's conversations, how long they grow, and the turns each figure is the CPU of. */
const LONG = { conversations: 16, turns: 150, early: [10, 30], late: [130, 150] } as const;

/** LONG.conversations conversations of LONG.turns turns sent to `server`; the CPU it spent in each band. */
async function converse(server: Server, name: string, cards: readonly GenCard[]) {
  const history = Array.from({ length: LONG.conversations }, (_, c) => [
    { role: "system", content: `You are friend number ${c}, and you remember everything.` },
  ]);
  const cpu: Record<"early" | "late", number> = { early: 0, late: 0 };
  for (let t = 0; t < LONG.turns; t++) {
    const band =
      t >= LONG.early[0] && t < LONG.early[1]
        ? "early"
        : t >= LONG.late[0] && t < LONG.late[1]
          ? "late"
          : null;
    const before = band === null ? null : cpuSecondsOf(server.pid);
    for (let c = 0; c < LONG.conversations; c++) {
      const card = cards[(c * 7919 + t * 104_729) % cards.length]!;
      const messages = history[c]!;
      messages.push({ role: "user", content: `Today I met ${card.title}, and we talked about the week.` });
      await once(server.url, JSON.stringify({ model: "m", messages }), `long-${name}-${c}`);
      messages.push({ role: "assistant", content: "That sounds like a good day. Tell me more." });
    }
    if (band && before !== null) cpu[band] += cpuSecondsOf(server.pid) - before;
  }
  return cpu;
}

/**
 * Section 7: conversations as they grow. LONG.conversations conversations go turn by turn to
 * LONG.turns, one request at a time, each turn naming a card and the client sending the whole history
 * back, as chat clients do; the CPU each server spent (every thread, from /proc) over the early turns
 * and over the late ones, per request. A late request carries more for both servers; what the gateway
 * does per turn beyond the bytes (its conversation's ledger read, the replay of every block it added,
 * the turn recorded) is what its ratio shows beside the bare proxy's. Each server first goes through
 * the same conversations under other ids, unmeasured: what a long conversation runs (replay's plan,
 * a ledger of hundreds of records) is code the rows before never ran, and its JIT compiling it over
 * the early turns was counted as their cost (the early turns at 2.1 ms, 1.1 ms once compiled).
 */
async function longConversations(via: Record<"bare" | "gateway", Server>, cards: readonly GenCard[]) {
  const ratio: Record<string, number> = {};
  const perRequest: Record<string, string> = {};
  for (const [name, server] of Object.entries(via)) {
    await converse(server, `warm-${name}`, cards);
    const cpu = await converse(server, name, cards);
    const requests = (LONG.early[1] - LONG.early[0]) * LONG.conversations;
    ratio[name] = cpu.late / cpu.early;
    perRequest[name] = `${ms((cpu.early / requests) * 1000)} early, ${ms((cpu.late / requests) * 1000)} late`;
  }
  console.log(
    `\n7. conversations as they grow (${LONG.conversations} of ${LONG.turns} turns, each naming a card): CPU a ` +
      `request, turns ${LONG.early.join("-")} against ${LONG.late.join("-")}`,
  );
  console.log(
    `  gateway ${perRequest.gateway} (${ratio.gateway!.toFixed(2)}×); bare proxy ${perRequest.bare} ` +
      `(${ratio.bare!.toFixed(2)}×); the gateway's growth beyond the bare proxy's ${(ratio.gateway! / ratio.bare!).toFixed(2)}×`,
  );
}

try {
  const small = Math.min(...SIZES);
  const smallCards = generateCards(small);
  const smallVault = workload(vaults, small).root;
  const bare = await startBareProxy(upstream.url);
  servers.push(bare);
  const gateway = await startGateway(smallVault, upstream.url);
  servers.push(gateway);
  await once(gateway.url, chatBody(smallCards, 0)); // opens the index
  const chats = chatsOf(smallCards);
  await rates(gateway, bare, chats);
  await latency({ direct: upstream.url, bare: bare.url, gateway: gateway.url }, smallCards);
  await longConversations({ bare, gateway }, smallCards);
  await bare.stop();
  await gateway.stop();
  servers.length = 0;
  await ratesBehindSlowUpstream(smallVault, chats);

  console.log(`\n3. gateway RSS over ${2 * RSS_REQUESTS} injecting requests (${CONCURRENCY} connections)`);
  for (const size of SIZES) {
    const started = performance.now();
    const work = workload(vaults, size);
    const cards = size === small ? smallCards : generateCards(size);
    console.log(`${size.toLocaleString("en")} cards (vault ready in ${ms(performance.now() - started)})`);
    const gw = await startGateway(work.root, upstream.url);
    servers.push(gw);
    await rssAfterRequests(gw, cards);
    if (size === Math.max(...SIZES) && EDIT_SECONDS > 0) {
      console.log(`\n4. added latency at ${size.toLocaleString("en")} cards while cards are edited`);
      await latencyWhileEditing(gw, upstream.url, cards, work.cards);
    }
    await gw.stop();
    servers.length = 0;
  }

  const withReplay = await prefixStability(smallVault, smallCards, true);
  const plain = await prefixStability(smallVault, smallCards, false);
  console.log("\n5. prefix stability, 30 turns: share of the previous request that the next one starts with");
  console.log(
    table([
      ["mode", "mean", "min", "turns that injected"],
      ["replay", pct(withReplay.reuse, 1), pct(withReplay.minReuse, 1), `${withReplay.fired}/30`],
      ["plain", pct(plain.reuse, 1), pct(plain.minReuse, 1), `${plain.fired}/30`],
    ]),
  );
  await besideFirstChinese(smallVault, upstream.url, smallCards);
  reportGoals("gateway", goals);
} finally {
  for (const s of servers) await s.stop();
  await upstream.close();
}
