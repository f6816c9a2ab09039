// The home-server recipe (docs/OPERATIONS.md, "A home server (systemd)"), read from the page itself so
// the page cannot drift from what is tested. Its unit passes `systemd-analyze verify` without a word
// and carries the hardening it promises. In a throwaway container (CI sets LORECARDS_SYSTEM_TESTS=1;
// it changes /etc, /srv and /usr/local, so never elsewhere) the recipe's commands run as written, as
// root: the set-up, the unit written where it says, `systemd-analyze verify` of that file; then, as far
// as a container without a booted systemd allows, the unit's command runs as its user with its
// environment: the editor and the gateway answer with the token and refuse without it, and nothing the
// service prints holds the token. A unit spoiled on purpose shows that verify would have spoken up.
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

  /** What `systemd-analyze verify` says of `unit`, its command pointed at the binary this checkout built. */
  function verify(unit: string): { code: number; out: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-unit-"));
    try {
      // verify checks that the command exists, so it is the one here, not /usr/local/bin's.
      const file = path.join(dir, "lorecards.service");
      fs.writeFileSync(file, unit.replace("/usr/local/bin/lorecards", bin));
      const r = Bun.spawnSync([analyze!, "verify", file], { stdout: "pipe", stderr: "pipe" });
      return { code: r.exitCode, out: `${r.stdout}${r.stderr}` };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test.skipIf(!haveAnalyze)("passes systemd-analyze verify without a word", () => {
    expect(verify(UNIT)).toEqual({ code: 0, out: "" });
  });

  // The check above is worth something only if verify speaks up: a key mistyped in the unit is
  // ignored by systemd (the hardening silently gone), and a command that is not there never starts.
  test.skipIf(!haveAnalyze).each([
    ["a mistyped key", (u: string) => u.replace("UMask=", "UMsk="), "Unknown key 'UMsk'"],
    [
      "a command that is not there",
      (u: string) => u.replace("/usr/local/bin/lorecards ui", "/usr/local/bin/lorecard ui"),
      "is not executable",
    ],
  ])("would not pass with %s", (_what, spoil, complaint) => {
    expect(verify(spoil(UNIT)).out).toContain(complaint);
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
  // Made in beforeAll: a describe's body runs even when it is skipped, and left a folder each run.
  let work = "";

  /** A recipe's lines, run by a shell in `cwd`; `sudo` is who runs them already (root, no sudo needed). */
  function run(script: string, cwd: string): void {
    const body = script.replace(/^sudo /gm, "");
    const r = Bun.spawnSync(["sh", "-eu", "-c", body], { cwd, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`the recipe failed (${r.exitCode}):\n${body}\n${r.stderr}`);
  }

  /**
   * The lines after the unit that only a booted systemd can run (a container has none as PID 1):
   * instead, the test starts the unit's command as systemd would. Any other line runs as written.
   */
  const NEEDS_BOOTED_SYSTEMD = [
    "sudo systemctl daemon-reload && sudo systemctl enable --now lorecards",
    "systemctl status lorecards",
  ];
  const startLines = START.split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "");
  const UNIT_FILE = "/etc/systemd/system/lorecards.service";
  let afterUnit = "";

  /**
   * Takes away what the recipe puts on the machine. Run before as well as after: a run killed part
   * way (this machine runs the CI again and again) left its user and files, and `useradd` refuses a
   * user that exists.
   */
  function undoRecipe(): void {
    Bun.spawnSync(["sh", "-c", "id -u lorecards >/dev/null 2>&1 && userdel lorecards; exit 0"]);
    for (const f of ["/srv/lorecards", "/etc/lorecards.env", "/usr/local/bin/lorecards", UNIT_FILE]) {
      fs.rmSync(f, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    undoRecipe();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "lc-recipe-"));
    // "after copying the binary there": it sits in the folder the commands run in.
    fs.copyFileSync(bin, path.join(work, "lorecards"));
    run(SETUP, work);
    // "Then the unit": written where the recipe says, and the lines after it run as written,
    // `systemd-analyze verify` of that file (against the installed binary) among them.
    fs.mkdirSync(path.dirname(UNIT_FILE), { recursive: true });
    fs.writeFileSync(UNIT_FILE, UNIT);
    afterUnit = startLines
      .filter((l) => !NEEDS_BOOTED_SYSTEMD.includes(l))
      .map((l) => {
        const body = l.replace(/^sudo /, "");
        const r = Bun.spawnSync(["sh", "-eu", "-c", body], { cwd: work, stdout: "pipe", stderr: "pipe" });
        if (r.exitCode !== 0) throw new Error(`the recipe failed (${r.exitCode}): ${body}\n${r.stderr}`);
        return `$ ${l}\n${r.stdout}${r.stderr}`;
      })
      .join("");
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
    undoRecipe();
    if (work !== "") fs.rmSync(work, { recursive: true, force: true });
  });

  test("the lines after the unit run as written: verify says nothing, and the token is shown to root", () => {
    // Every line is run here or named as one only a booted systemd runs.
    expect(startLines.filter((l) => NEEDS_BOOTED_SYSTEMD.includes(l))).toEqual(NEEDS_BOOTED_SYSTEMD);
    expect(afterUnit).toBe(
      `$ sudo systemd-analyze verify ${UNIT_FILE}\n$ sudo cat /etc/lorecards.env\nLORECARDS_TOKEN=${token}\n`,
    );
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
