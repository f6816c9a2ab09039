// The `lorecards` command a global npm install links (`src/bin.js`, package.json `bin`), run by Node
// as npm's link runs it: it starts the Bun installed beside it on the sources, as isolated from the
// working directory as the compiled binary, passes exit codes and SIGTERM through, and as this
// package's `prepare` step does nothing when the dependencies are in place. `npm i -g .` itself
// (which needs the registry) is checked by hand: see CONTRIBUTING.md.
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { REPO } from "../support/binary.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

const NODE = Bun.which("node");
const HAVE_NODE = prerequisite(NODE !== null, "test/e2e/npm-command.test.ts", "no `node` on PATH");
const COMMAND = path.join(REPO, "src", "bin.js");

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});
function scratch(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

function spawn(args: string[], opts: { cwd?: string; env?: Record<string, string>; command?: string } = {}) {
  return Bun.spawn([NODE ?? "node", opts.command ?? COMMAND, ...args], {
    cwd: opts.cwd ?? scratch(),
    env: { PATH: process.env.PATH ?? "", HOME: scratch(), ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function run(args: string[], opts: Parameters<typeof spawn>[1] = {}) {
  const proc = spawn(args, opts);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

describe.skipIf(!HAVE_NODE)("the command npm links", () => {
  test("--version prints the package's version", async () => {
    const r = await run(["--version"]);
    expect(r).toEqual({ stdout: `${pkg.version}\n`, stderr: "", code: 0 });
  });

  test("try finds the cards, as the binary does", async () => {
    const vault = makeVault();
    dirs.push(vault);
    const r = await run(["try", "--vault", vault, "--json", "how did the friday deploy go?"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { injected: string[] }).injected).toEqual(["the Friday deploy"]);
  });

  test("a .env, bunfig.toml and tsconfig.json in the working directory are not loaded", async () => {
    const cwd = scratch();
    fs.writeFileSync(path.join(cwd, ".env"), "LORECARDS_VAULT=/nonexistent/from-dotenv\n");
    fs.writeFileSync(path.join(cwd, "preload.ts"), 'console.error("PRELOADED");\n');
    fs.writeFileSync(path.join(cwd, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    fs.writeFileSync(path.join(cwd, "tsconfig.json"), '{"compilerOptions":{"paths":{"citty":["./x.ts"]}}}\n');
    const r = await run(["list"], { cwd });
    expect(r.stderr).not.toContain("PRELOADED");
    expect(r.stderr).not.toContain("from-dotenv");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Alice");
  });

  test("the exit code is Bun's: a card that does not exist is 3", async () => {
    const vault = makeVault();
    dirs.push(vault);
    const r = await run(["read", "nobody", "--vault", vault]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no card named "nobody"');
  });

  test("SIGTERM stops a server the way it stops the binary: cleanly, exit 0", async () => {
    const vault = makeVault();
    dirs.push(vault);
    const proc = spawn([
      "gateway",
      "--vault",
      vault,
      "--upstream",
      "http://127.0.0.1:9",
      "--port",
      "0",
      "--json",
    ]);
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { done, value } = await reader.read();
      if (done)
        throw new Error(`the gateway exited before listening: ${await new Response(proc.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    const { url } = JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string };
    expect((await fetch(`${url}/v1/models`)).status).toBe(502);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
  });

  test("as this package's prepare step, with its dependencies in place, it does nothing", async () => {
    const r = await run(["--version"], {
      env: { npm_lifecycle_event: "prepare", npm_package_json: path.join(REPO, "package.json") },
    });
    expect(r).toEqual({ stdout: "", stderr: "", code: 0 });
  });

  test("inside another package's prepare step it is the plain command", async () => {
    const other = scratch();
    fs.writeFileSync(path.join(other, "package.json"), '{"name":"other"}\n');
    const r = await run(["--version"], {
      env: { npm_lifecycle_event: "prepare", npm_package_json: path.join(other, "package.json") },
    });
    expect(r).toEqual({ stdout: `${pkg.version}\n`, stderr: "", code: 0 });
  });

  test("without the Bun beside it, it says what to run, and exits 1", async () => {
    const bare = scratch();
    fs.mkdirSync(path.join(bare, "src"));
    fs.copyFileSync(COMMAND, path.join(bare, "src", "bin.js"));
    fs.copyFileSync(path.join(REPO, "package.json"), path.join(bare, "package.json"));
    const r = await run(["--version"], { command: path.join(bare, "src", "bin.js") });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("npm install --omit=dev");
  });
});
