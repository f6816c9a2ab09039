// Every command the README and docs/ show is run: read from the pages themselves (test/support/
// doc-commands.ts), in the order a reader meets them, each page in a home of its own with `lorecards`
// on its PATH (the compiled binary) and the files its commands name. A command must do what the page
// says: exit 0 unless the page says otherwise, print what a `console` block shows it printing, and a
// server (gateway, ui, mcp --http) must come up and serve the commands after it. The API it would
// call upstream is a fake on 127.0.0.1, and every port is a free one, the commands after a server
// rewritten to it. What no test here can run is listed below with the test or the CI step that runs
// it, or, for a few, why nothing does; a command in none of the lists fails this test, so a new line
// in the docs comes with its test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, REPO } from "../support/binary.ts";
import { type DocCommand, docCommands, docPages, jsonBlockAfter } from "../support/doc-commands.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type StreamText, streamText } from "../support/wait.ts";

/** Commands run by another test or a CI step: the pattern, and the file that runs it. */
const ELSEWHERE: [RegExp, string][] = [
  [/^git clone /, ".ci/run (CI starts from a fresh clone)"],
  [/^npm install$/, ".ci/run (npm ci from the same lockfile)"],
  [/^npm test$/, ".ci/run"],
  [/^npm run build$/, ".ci/run"],
  [/^sudo |^systemctl status /, "test/e2e/home-server-recipe.test.ts"],
  [/^(ANTHROPIC_BASE_URL=\S+ )?claude( |$)/, "test/e2e/real-clients.test.ts"],
  [/^GOOGLE_GEMINI_BASE_URL=\S+ GEMINI_API_KEY=\S+ gemini$/, "test/e2e/client-recipes.test.ts"],
  [/^lorecards style (pin|forget) <id>$/, "test/e2e/style.test.ts"],
  [/^lorecards style (brief|score|init) (\[|\|)/, "test/e2e/style.test.ts"],
];

/** Commands nothing runs, and why. */
const UNRUN: [RegExp, string][] = [
  [/^npm run build -- --all$/, "cross-compiling fetches four more runtimes from the npm registry"],
  [/^npm i -g \.$/, "a global install changes the machine; CONTRIBUTING.md says how to check it by hand"],
  [/^npm run bench( -- quick)?$/, "the benchmarks take many minutes; `npm run bench` is their own runner"],
];

/** What a command exits with when the page says it does not succeed. */
const EXITS: [RegExp, number][] = [[/^lorecards style init --skip$/, 4]];

const PORTS: Record<string, number> = { gateway: 8765, ui: 8766, mcp: 8767 };

interface Page {
  home: string;
  env: Record<string, string>;
  servers: { proc: Bun.Subprocess<"ignore", "pipe", "pipe">; stderr: StreamText }[];
  /** Default port → the free one a server got. */
  ports: Map<number, number>;
}

let bin = "";
let upstream: FakeUpstream;
beforeAll(async () => {
  bin = await ensureBinary();
  upstream = startFakeUpstream({ reply: () => "Noted." });
});
afterAll(async () => {
  await upstream.close();
});

/** A command, run without blocking: the fake upstream answers from this very process meanwhile. */
async function run(page: Page, script: string, stdin?: string) {
  const proc = Bun.spawn(["sh", "-c", script], {
    // A command that names the build's output runs in the checkout, as the page says it does.
    cwd: /(^|\s)dist\//.test(script) ? REPO : page.home,
    env: page.env,
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * A home for one page: `lorecards` on PATH, two vaults with a history (and Marguerite, unless the page
 * makes her itself), and the files its commands name.
 */
async function newPage(file: string, commands: DocCommand[]): Promise<Page> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-docs-"));
  fs.mkdirSync(path.join(home, "bin"));
  fs.symlinkSync(bin, path.join(home, "bin", "lorecards"));
  const env = {
    HOME: home,
    PATH: `${home}/bin:${home}/.local/bin:${process.env.PATH ?? "/usr/bin:/bin"}`,
    OPENAI_API_KEY: "sk-test",
  };
  const page: Page = { home, env, servers: [], ports: new Map() };
  const setup = [
    "lorecards init ~/cards >/dev/null",
    "lorecards init ~/.lorecards >/dev/null",
    // Cards the pages name beyond the examples, and history enough for `--version 12`.
    "for v in ~/cards ~/.lorecards; do",
    commands.some((c) => c.line.includes("new people Marguerite"))
      ? ""
      : '  lorecards new people Marguerite --keywords "Marguerite, Maggie" --section "who=My neighbour." --vault $v >/dev/null',
    '  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do lorecards update Alice recent "Visit $i." --vault $v >/dev/null; done',
    "done",
    // The files the import and export commands name.
    "lorecards export ~/book.json >/dev/null && lorecards export ~/Seraphina.png >/dev/null && cp ~/Seraphina.png ~/base.png",
    "mkdir -p ~/mnt/usb/lorecards",
  ].join("\n");
  const r = await run(page, setup);
  if (r.code !== 0) throw new Error(`${file}: the page's home could not be made: ${r.stderr}`);
  const aggregates = jsonBlockAfter(REPO, "docs/STYLE-MEMORY.md", "aggregates.json");
  if (aggregates) fs.writeFileSync(path.join(home, "aggregates.json"), aggregates);
  return page;
}

async function closePage(page: Page): Promise<void> {
  for (const s of page.servers) {
    try {
      process.kill(-s.proc.pid, "SIGTERM"); // the whole session
    } catch {
      s.proc.kill("SIGTERM");
    }
    await s.proc.exited;
  }
  fs.rmSync(page.home, { recursive: true, force: true });
}

/** The command as run here: the fake upstream for the real one, free ports, places inside the home. */
function adapted(page: Page, line: string): string {
  let out = line
    .replace(
      /https:\/\/(api\.openai\.com|api\.anthropic\.com|generativelanguage\.googleapis\.com)(\/v1)?/g,
      upstream.url,
    )
    .replace(/\/mnt\/usb\//g, `${page.home}/mnt/usb/`)
    .replace(/"\$\(openssl rand -hex 16\)"/g, "0123456789abcdef0123456789abcdef");
  for (const [from, to] of page.ports) out = out.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
  if (/\brestore-backup FILE\b/.test(out)) {
    const vault = out.includes("--to") ? "~/.lorecards" : "~/.lorecards";
    out = out.replace("FILE", `"$(ls -t ${vault}/.lorecards/backups/*.tar.gz | head -n 1)"`);
  }
  return out;
}

/** `lorecards gateway|ui|mcp --http …`: started on a free port, left running for the commands after it. */
async function startServer(page: Page, line: string): Promise<void> {
  // `npm start` is `lorecards ui` from the checkout, through npm: its flags go after `--`.
  const npm = line === "npm start";
  const kind = npm ? "ui" : /^lorecards (gateway|ui|mcp)\b/.exec(line)![1]!;
  const given = /--port (\d+)/.exec(line);
  const from = given ? Number(given[1]) : PORTS[kind]!;
  const script = npm
    ? "exec npm start -- --port 0 --json"
    : `exec ${adapted(page, line).replace(/--port \d+/, "")} --port 0 --json`;
  // A session of its own, so that stopping it stops what it started too (npm's child).
  const setsid = Bun.which("setsid");
  const proc = Bun.spawn([...(setsid ? [setsid] : []), "sh", "-c", script], {
    cwd: npm ? REPO : page.home,
    env: page.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = streamText(proc.stdout);
  const stderr = streamText(proc.stderr);
  page.servers.push({ proc, stderr });
  await Promise.race([
    stdout.waitFor("}\n"),
    proc.exited.then((code) => {
      throw new Error(`${line} exited ${code}: ${stderr.text()}`);
    }),
  ]);
  // npm prints its own lines first; the server's is the JSON one.
  const ready = JSON.parse(
    stdout
      .text()
      .split("\n")
      .find((l) => l.startsWith("{"))!,
  ) as { url: string };
  page.ports.set(from, Number(new URL(ready.url).port));
}

function where(c: DocCommand): string | undefined {
  for (const [pattern, by] of [...ELSEWHERE, ...UNRUN]) if (pattern.test(c.line)) return by;
  return undefined;
}

const pages = docPages(REPO).map((file) => ({ file, commands: docCommands(REPO, file) }));

describe.each(pages.filter((p) => p.commands.length > 0))("the commands of $file", ({ file, commands }) => {
  test("run as the page shows them", async () => {
    const page = await newPage(file, commands);
    try {
      for (const c of commands) {
        if (where(c) !== undefined) continue;
        const line = c.line;
        if (/^(lorecards (gateway|ui|mcp --http)\b|npm start$)/.test(line)) {
          await startServer(page, line);
          continue;
        }
        if (/^export \w+=/.test(line)) {
          const [name = "", value = ""] = line.slice(7).split("=");
          page.env = { ...page.env, [name]: value.replace(/^~/, page.home) };
          continue;
        }
        const r = await run(page, adapted(page, line));
        const exit = EXITS.find(([p]) => p.test(c.line))?.[1] ?? 0;
        // A command that fails says why, with what the servers it talks to said (a curl to the gateway
        // that gets no answer at all shows only its exit code).
        const said = r.code === exit ? "" : page.servers.map((s) => s.stderr.text().slice(-2000)).join("\n");
        expect({
          line: c.line,
          code: r.code,
          stderr: r.code === exit ? "" : r.stderr,
          servers: said,
        }).toEqual({
          line: c.line,
          code: exit,
          stderr: "",
          servers: "",
        });
        if (c.output !== undefined && file === "README.md") expect(r.stdout.trimEnd()).toBe(c.output);
        if (/^curl /.test(c.line))
          expect(r.stdout.toLowerCase()).toContain("x-lorecards-injected: marguerite");
        if (/hits\.jsonl$/.test(c.line)) expect(JSON.parse(r.stdout).keys).toContain("Marguerite");
      }
    } finally {
      await closePage(page);
    }
  });
});

describe("what this test does not run", () => {
  test("is run by the test or CI step named beside it", () => {
    for (const [, by] of ELSEWHERE) {
      const file = by.split(" ")[0]!;
      expect([by, fs.existsSync(path.join(REPO, file))]).toEqual([by, true]);
    }
  });

  test("every pattern still matches a command of the pages: none is kept for a line that is gone", () => {
    const all = pages.flatMap((p) => p.commands);
    for (const [pattern] of [...ELSEWHERE, ...UNRUN, ...EXITS])
      expect([String(pattern), all.some((c) => pattern.test(c.line))]).toEqual([String(pattern), true]);
  });
});
