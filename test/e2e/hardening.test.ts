// The hardening as users meet it, through the compiled binary: symbolic links in the vault are never
// followed by try, read, the hook, check, import or export; short tokens are refused at start-up by
// every server; a request without Host gets a 400 from every server; the editor's security headers
// come from the binary's embedded page; check removes temp files a killed write left behind.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type LinkedVault, linkedVault, SECRET } from "../support/links.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

const TOKEN = "e2e-hardening-0123456789";
let linked: LinkedVault;
let plain: string;
const servers: Bun.Subprocess[] = [];
beforeAll(async () => {
  await ensureBinary();
  linked = linkedVault();
  plain = makeVault();
});
afterAll(async () => {
  for (const s of servers) s.kill();
  await Promise.all(servers.map((s) => s.exited));
  linked.remove();
  removeDir(plain);
});

const inLinked = (args: string[], opts: { stdin?: string } = {}) =>
  runBinary([...args, "--vault", linked.root], opts);

describe("symbolic links in the vault (compiled binary)", () => {
  test("try surfaces no card reached through a link", async () => {
    const r = await inLinked(["try", "zanzibar and the friday deploy", "--json"]);
    expect(r.code).toBe(0);
    const fired = (JSON.parse(r.stdout) as { fired: { key: string }[] }).fired.map((c) => c.key);
    expect(fired).toEqual(["the Friday deploy"]);
    expect(r.stdout).not.toContain(SECRET);
  });

  test("the hook injects no card reached through a link", async () => {
    const input = JSON.stringify({
      session_id: "links-1",
      transcript_path: "",
      cwd: "/tmp",
      hook_event_name: "UserPromptSubmit",
      prompt: "tell me about zanzibar and the friday deploy",
    });
    const r = await inLinked(["hook"], { stdin: input });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("the Friday deploy");
    expect(r.stdout).not.toContain(SECRET);
  });

  test("read refuses a linked card, naming the link, and prints nothing of its target", async () => {
    const r = await inLinked(["read", "passwd"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("people/passwd.md is a symbolic link");
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  test("check prints one error line per link, naming it and its target, and exits 1", async () => {
    const r = await inLinked(["check"]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("error") && l.includes("symbolic link"));
    expect(lines.sort()).toEqual(
      [
        `error    _archive: is a symbolic link to ${path.join(linked.outside, "archive")}; lorecards never follows links inside the vault`,
        "error    people/Ally.md: is a symbolic link to Alice.md; lorecards never follows links inside the vault",
        `error    people/passwd.md: is a symbolic link to ${path.join(linked.outside, "secret.md")}; lorecards never follows links inside the vault`,
        `error    slang: is a symbolic link to ${path.join(linked.outside, "slang")}; lorecards never follows links inside the vault`,
      ].sort(),
    );
  });

  test("import into a kind whose directory is a link fails and writes nothing outside", async () => {
    const dir = tempDir();
    const book = path.join(dir, "book.json");
    fs.writeFileSync(
      book,
      JSON.stringify({ entries: { "0": { key: ["harbor"], comment: "harbor", content: "x" } } }),
    );
    const before = linked.outsideFiles();
    try {
      const r = await inLinked(["import", book, "--book", "main", "--kind", "slang"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("slang is a symbolic link");
      expect(linked.outsideFiles()).toEqual(before);
    } finally {
      removeDir(dir);
    }
  });

  test("export reads no card through a link", async () => {
    const dir = tempDir();
    const out = path.join(dir, "book.json");
    try {
      const r = await inLinked(["export", out]);
      expect(r.code).toBe(0);
      const text = fs.readFileSync(out, "utf8");
      expect(text).toContain("the corner cafe");
      expect(text).not.toContain(SECRET);
    } finally {
      removeDir(dir);
    }
  });
});

describe("temp files left by a killed write (compiled binary)", () => {
  test("check removes them when their writer is gone", async () => {
    const dead = Bun.spawnSync([process.execPath, "-e", "0"]).pid;
    const file = path.join(plain, "people", `.Alice.md.${dead}.0a1b2c3d.tmp`);
    fs.writeFileSync(file, "half a card");
    const past = new Date(Date.now() - 120_000);
    fs.utimesSync(file, past, past);
    await runBinary(["check", "--vault", plain]);
    expect(fs.existsSync(file)).toBe(false);
  });
});

/** Starts a server command with --json and resolves to the URL of its first stdout line. */
async function startServer(args: string[], env: Record<string, string> = {}): Promise<string> {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, ...args, "--port", "0", "--json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: plain, ...env },
  });
  servers.push(proc);
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args[0]} exited: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return (JSON.parse(text.split("\n")[0]!) as { url: string }).url.replace(/\/mcp$/, "");
}

function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open: (s) => void s.write(text),
        data: (_s, d) => {
          answer += new TextDecoder().decode(d);
        },
        close: () => resolve(answer),
        error: () => resolve(answer),
      },
    });
  });
}

describe("tokens and Host (compiled binary)", () => {
  test.each([
    ["ui", ["ui", "--token", "short-token"], {}],
    ["ui, from $LORECARDS_TOKEN", ["ui"], { LORECARDS_TOKEN: "short-token" }],
    ["gateway", ["gateway", "--upstream", "http://127.0.0.1:9", "--token", "short-token"], {}],
    ["mcp --http", ["mcp", "--http", "--token", "short-token"], {}],
  ])("%s refuses a token under 16 characters (exit 2), saying how to make one", async (_, args, env) => {
    const r = await runBinary([...args, "--port", "0", "--vault", plain], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("it needs at least 16");
    expect(r.stderr).toContain("openssl rand -hex 16");
    expect(r.stdout).toBe("");
  });

  test.each([
    ["ui", "/api/cards", ["ui", "--token", TOKEN]],
    ["ui", "/", ["ui"]],
    ["gateway", "/v1/chat/completions", ["gateway", "--upstream", "http://127.0.0.1:9", "--token", TOKEN]],
    ["a gateway on loopback without a token", "/v1/models", ["gateway", "--upstream", "http://127.0.0.1:9"]],
    ["mcp --http", "/mcp", ["mcp", "--http", "--token", TOKEN]],
  ])("%s answers an HTTP/1.0 request for %s without Host with a 400", async (_, url, args) => {
    const base = await startServer([...args, "--vault", plain]);
    const answer = await rawRequest(base, `GET ${url} HTTP/1.0\r\n\r\n`);
    expect(answer).toStartWith("HTTP/1.1 400 ");
    expect(answer).toContain('"error":"invalid_input"');
  });

  test("the compiled editor sends the security headers with its embedded page and files", async () => {
    const base = await startServer(["ui", "--vault", plain]);
    const page = await fetch(`${base}/`);
    const html = await page.text();
    const script = /src="(\/chunk-[^"]+\.js)"/.exec(html)![1];
    for (const res of [page, await fetch(`${base}${script}`), await fetch(`${base}/api/kinds`)]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("content-security-policy")).toEndWith("; frame-ancestors 'none'");
    }
    expect(html).toContain('<div id="card-list"');
  });
});
