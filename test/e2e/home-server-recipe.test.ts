// The home-server recipe (docs/OPERATIONS.md, "A home server (systemd)"), read from the page itself so
// the page cannot drift from what is tested. Its unit passes `systemd-analyze verify` without a word
// and carries the hardening it promises. In a throwaway container (CI sets LORECARDS_SYSTEM_TESTS=1;
// it changes /etc, /srv and /usr/local, so never elsewhere) the recipe's commands run as written, as
// root, and the unit's command then runs as its user with its environment, as far as a container
// without systemd allows: the editor and the gateway answer with the token and refuse without it, and
// nothing the service prints holds the token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, REPO } from "../support/binary.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { type StreamText, streamText, until } from "../support/wait.ts";

const PAGE = fs.readFileSync(path.join(REPO, "docs", "OPERATIONS.md"), "utf8");
const SECTION = PAGE.slice(
  PAGE.indexOf("## A home server (systemd)"),
  PAGE.indexOf("\n## ", PAGE.indexOf("## A home server") + 3),
);

/** The fenced blocks of the recipe, by language. */
function blocks(lang: string): string[] {
  return [...SECTION.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!);
}

const UNIT = blocks("ini")[0]!;
const [SETUP = "", START = ""] = blocks("bash");

/** `Key=value` lines of the unit's [Service] section. */
function service(): Map<string, string> {
  const lines = UNIT.slice(UNIT.indexOf("[Service]"), UNIT.indexOf("[Install]")).split("\n");
  return new Map(
    lines
      .filter((l) => /^\w+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

let bin = "";
beforeAll(async () => {
  bin = await ensureBinary();
});

describe("the systemd unit", () => {
  test("has the hardening that costs nothing", () => {
    const s = service();
    expect(s.get("UMask")).toBe("0077");
    expect(s.get("PrivateDevices")).toBe("yes");
    expect(s.get("CapabilityBoundingSet")).toBe("");
    expect(s.get("NoNewPrivileges")).toBe("yes");
    expect(s.get("ProtectSystem")).toBe("strict");
    expect(s.get("RestrictAddressFamilies")?.split(" ").sort()).toEqual([
      "AF_INET",
      "AF_INET6",
      "AF_NETLINK",
      "AF_UNIX",
    ]);
    // The folder it may write is the vault the recipe makes and owns, and the one LORECARDS_VAULT names.
    expect(s.get("ReadWritePaths")).toBe("/srv/lorecards/cards");
    expect(s.get("Environment")).toBe("LORECARDS_VAULT=/srv/lorecards/cards");
    expect(SETUP).toContain("-o lorecards -g lorecards /srv/lorecards /srv/lorecards/cards");
    expect(SETUP).toContain("useradd --system");
    expect(SETUP).toContain("/etc/lorecards.env");
  });

  const analyze = Bun.which("systemd-analyze");
  const haveAnalyze = prerequisite(
    analyze !== null,
    "the systemd unit",
    "systemd-analyze is not installed (Debian: apt-get install systemd)",
  );

  test.skipIf(!haveAnalyze)("passes systemd-analyze verify without a word", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-unit-"));
    try {
      // The binary where this checkout built it: verify checks that the command exists.
      const file = path.join(dir, "lorecards.service");
      fs.writeFileSync(file, UNIT.replace("/usr/local/bin/lorecards", bin));
      const r = Bun.spawnSync([analyze!, "verify", file], { stdout: "pipe", stderr: "pipe" });
      expect({ code: r.exitCode, out: `${r.stdout}${r.stderr}` }).toEqual({ code: 0, out: "" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what lorecards ui prints at start", () => {
  const TOKEN = "a-token-of-32-characters-0123456";

  /** What `ui` prints on stderr until `last` (the end of what it says at start), then stops it. */
  async function started(args: string[], last: string): Promise<string> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-ui-"));
    const proc = Bun.spawn([bin, "init", dir], { stdout: "ignore", stderr: "ignore" });
    await proc.exited;
    const ui = Bun.spawn(
      [bin, "ui", "--vault", dir, "--port", "0", "--token", TOKEN, "--no-backups", ...args],
      {
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      },
    );
    const err = streamText(ui.stderr);
    try {
      await err.waitFor(last);
      return err.text();
    } finally {
      ui.kill("SIGTERM");
      await ui.exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test("never the token, which a service's log would keep, but how to add it", async () => {
    const text = await started([], "(--show-token prints it)");
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("add ?token=<your token>");
  });

  test("the whole link with --show-token", async () => {
    expect(await started(["--show-token"], `/?token=${TOKEN}\n`)).toContain(`/?token=${TOKEN}`);
  });
});

const SYSTEM = process.env.LORECARDS_SYSTEM_TESTS === "1" && process.getuid?.() === 0;

describe.skipIf(!SYSTEM)("the recipe, followed line by line in a throwaway container", () => {
  let server: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let stderr: StreamText;
  let token = "";
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lc-recipe-"));

  /** A recipe's lines, run by a shell in `cwd`; `sudo` is who runs them already (root, no sudo needed). */
  function run(script: string, cwd: string): void {
    const body = script.replace(/^sudo /gm, "");
    const r = Bun.spawnSync(["sh", "-eu", "-c", body], { cwd, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`the recipe failed (${r.exitCode}):\n${body}\n${r.stderr}`);
  }

  beforeAll(async () => {
    // "after copying the binary there": it sits in the folder the commands run in.
    fs.copyFileSync(bin, path.join(work, "lorecards"));
    run(SETUP, work);
    token = /LORECARDS_TOKEN=(\w+)/.exec(fs.readFileSync("/etc/lorecards.env", "utf8"))![1]!;
    const s = service();
    // What systemd would do: the user, the umask, the environment file, then ExecStart.
    const exec = s.get("ExecStart")!;
    server = Bun.spawn(
      ["runuser", "-u", s.get("User")!, "--", "sh", "-c", `umask ${s.get("UMask")}; exec ${exec}`],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          LORECARDS_VAULT: "/srv/lorecards/cards",
          LORECARDS_TOKEN: token,
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    stderr = streamText(server.stderr);
    await stderr.waitFor("Anthropic clients' base URL");
  });

  afterAll(async () => {
    server?.kill("SIGTERM");
    await server?.exited;
    run("userdel lorecards; rm -rf /srv/lorecards /etc/lorecards.env /usr/local/bin/lorecards", work);
    fs.rmSync(work, { recursive: true, force: true });
  });

  test("the token file is root's alone, and the vault is the service user's", () => {
    const env = fs.statSync("/etc/lorecards.env");
    expect([env.uid, env.mode & 0o777]).toEqual([0, 0o600]);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const vault = fs.statSync("/srv/lorecards/cards");
    const uid = Number(Bun.spawnSync(["id", "-u", "lorecards"]).stdout.toString().trim());
    expect([vault.uid, vault.mode & 0o777]).toEqual([uid, 0o700]);
    expect(fs.existsSync("/srv/lorecards/cards/people")).toBe(true);
  });

  test("the editor and the gateway answer with the token and refuse without it", async () => {
    const editor = (auth?: string) =>
      fetch("http://127.0.0.1:8766/api/cards", { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
    expect((await editor()).status).toBe(401);
    expect((await editor(token)).status).toBe(200);
    const gateway = (auth?: string) =>
      fetch("http://127.0.0.1:8765/v1/models", { headers: auth ? { "x-lorecards-token": auth } : {} });
    expect((await gateway()).status).toBe(401);
  });

  test("what the service writes is its user's alone (UMask=0077)", async () => {
    const made = await fetch("http://127.0.0.1:8766/api/cards", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "x-lorecards": "1", "content-type": "application/json" },
      body: JSON.stringify({ kind: "people", title: "Zed", keywords: ["zed"] }),
    });
    expect(made.status).toBe(201);
    await until(() => fs.existsSync("/srv/lorecards/cards/people/Zed.md"), "the new card's file");
    expect(fs.statSync("/srv/lorecards/cards/people/Zed.md").mode & 0o077).toBe(0);
  });

  test("nothing the service prints holds the token", () => {
    expect(stderr.text()).toContain("open http://");
    expect(stderr.text()).not.toContain(token);
    expect(START).toContain("systemctl enable --now lorecards");
  });
});
