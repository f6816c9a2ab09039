/**
 * Shared by the crash and concurrency tests against the compiled binary: card bodies that carry their
 * own version and end marker (so a torn or partial file can never pass for a whole one), the editor
 * started with `ui --port 0 --json`, its HTTP API called as the page calls it, a seeded random source
 * (the seed is printed), and a walk of the card files and temp leftovers of a vault.
 */
import fs from "node:fs";
import path from "node:path";

/** Mulberry32: small, seedable, good enough to pick kill times and operations. */
export function seededRandom(name: string): {
  seed: number;
  next(): number;
  int(lo: number, hi: number): number;
} {
  const given = Number(process.env.E2E_SEED ?? Number.NaN);
  const seed = Number.isFinite(given) ? given | 0 : (Math.random() * 2 ** 31) | 0;
  console.log(`${name}: seed ${seed} (replay with E2E_SEED=${seed})`);
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/** A card body of about `lines` lines, every one naming the card and the version, then an end marker. */
export function versionText(name: string, version: number, lines = 40): string {
  let out = `${name} v${version}\n`;
  for (let i = 0; i < lines; i++) out += `line ${i} of ${name} v${version}: the quick brown fox.\n`;
  return `${out}END ${name} v${version}\n`;
}

/**
 * The version a file (or a section) holds, checking it holds all of that version and nothing of
 * another: a torn write, a partial file or a mix throws.
 */
export function versionIn(text: string, name: string, lines = 40): number {
  const m = new RegExp(`^${escapeRegExp(name)} v(\\d+)$`, "m").exec(text);
  if (m === null) throw new Error(`${name}: no version line in ${JSON.stringify(text.slice(0, 200))}`);
  const v = Number(m[1]);
  if (!text.includes(versionText(name, v, lines)))
    throw new Error(`${name}: version ${v} is not whole: ${JSON.stringify(text.slice(0, 300))}…`);
  const others = [...text.matchAll(new RegExp(`${escapeRegExp(name)} v(\\d+)`, "g"))].filter(
    (x) => Number(x[1]) !== v,
  );
  if (others.length > 0) throw new Error(`${name}: versions ${v} and ${others[0]![1]} mixed in one file`);
  return v;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export interface Editor {
  url: string;
  pid: number;
  proc: ReturnType<typeof Bun.spawn>;
  /** Fetch the API as the page does (the Host is the server's; writes carry X-Lorecards: 1). */
  api(method: string, route: string, body?: unknown): Promise<Response>;
  kill(): Promise<void>;
}

/** `lorecards ui --port 0 --json`: resolves once it prints its URL. */
export async function startEditor(bin: string, vault: string, home: string): Promise<Editor> {
  const proc = Bun.spawn([bin, "ui", "--vault", vault, "--port", "0", "--json"], {
    env: { PATH: process.env.PATH ?? "", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = await firstJsonLine(proc, "ui");
  const api = (method: string, route: string, body?: unknown) =>
    fetch(`${url}${route}`, {
      method,
      headers: method === "GET" ? {} : { "x-lorecards": "1", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    url,
    pid: proc.pid,
    proc,
    api,
    kill: async () => {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

/** The `url` of the first JSON line a server prints on stdout (`--json`). */
export async function firstJsonLine(proc: ReturnType<typeof Bun.spawn>, what: string): Promise<string> {
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  const deadline = Date.now() + 60_000;
  while (!out.includes("\n") && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  if (!out.includes("\n")) {
    proc.kill("SIGKILL");
    const err = await new Response(proc.stderr as ReadableStream<Uint8Array>).text();
    throw new Error(`lorecards ${what} did not start: ${out}${err}`);
  }
  return (JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string }).url;
}

/** Every card file of a vault (not `.lorecards/`, not dot files), relative path → text. */
export function cardFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) out.set(path.relative(root, p), fs.readFileSync(p, "utf8"));
    }
  };
  walk(root);
  return out;
}

/** The dot files a killed write may leave beside cards (`.<name>.<pid>.<hex>.tmp`), anywhere but `.lorecards/`. */
export function tempFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== ".lorecards") walk(p);
      else if (e.isFile() && e.name.startsWith(".")) out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out;
}
