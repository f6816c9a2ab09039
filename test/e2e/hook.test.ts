// `lorecards hook` as Claude Code runs it: the compiled binary, hook JSON on stdin, a real JSONL
// transcript. LORECARDS_BIN overrides the binary; otherwise dist/lorecards (built when missing or stale).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const TRANSCRIPT = path.join(import.meta.dir, "..", "hook", "fixtures", "transcript.jsonl");
let bin = "";
let vault = "";
beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault();
});
afterAll(() => removeDir(vault));

async function hook(stdin: string, args: string[] = []) {
  const proc = Bun.spawn([bin, "hook", "--vault", vault, ...args], {
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

function payload(session: string, prompt: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: TRANSCRIPT,
    cwd: "/home/me/project",
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
    ...extra,
  });
}

describe("lorecards hook (compiled binary)", () => {
  test("cards from the prompt and the transcript's recent turns come back as additionalContext", async () => {
    const { stdout, code } = await hook(payload("e2e-1", "and the friday deploy?"));
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out)).toEqual(["hookSpecificOutput"]);
    expect(out.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
    const context: string = out.hookSpecificOutput.additionalContext;
    for (const title of ["the Friday deploy", "the corner cafe", "Alice"])
      expect(context).toContain(`### ${title} [`);
    expect(context).not.toContain("blue notebook");
    expect(context.length).toBeLessThan(10_000);
  });

  test("within one session a card is not injected again, and the hit log records source hook", async () => {
    const first = await hook(payload("e2e-2", "friday deploy", { transcript_path: undefined }), [
      "--reinject-after",
      "2",
    ]);
    const second = await hook(payload("e2e-2", "friday deploy", { transcript_path: undefined }), [
      "--reinject-after",
      "2",
    ]);
    const third = await hook(payload("e2e-2", "friday deploy", { transcript_path: undefined }), [
      "--reinject-after",
      "2",
    ]);
    expect(first.stdout).toContain("the Friday deploy");
    expect(second).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(third.stdout).toContain("the Friday deploy");
    const hits = fs
      .readFileSync(path.join(vault, ".lorecards", "hits.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(hits.filter((h) => h.source === "hook" && h.message === "friday deploy")).toHaveLength(2);
  });

  test("--no-log, --budget and --scan-depth are accepted", async () => {
    const before = fs.readFileSync(path.join(vault, ".lorecards", "hits.jsonl"), "utf8");
    const { stdout, code } = await hook(payload("e2e-3", "sounds good"), [
      "--no-log",
      "--budget",
      "10",
      "--scan-depth",
      "0",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(""); // scan depth 0: the cafe from the transcript is out of the window
    const r = await hook(payload("e2e-4", "the corner cafe and alice"), ["--no-log", "--budget", "10"]);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext.match(/^### /gm)).toHaveLength(1);
    expect(fs.readFileSync(path.join(vault, ".lorecards", "hits.jsonl"), "utf8")).toBe(before);
  });

  test("SessionStart in a vault with no guide and no always-on card gets an empty answer", async () => {
    const r = await hook(
      JSON.stringify({ session_id: "e2e-5", hook_event_name: "SessionStart", source: "startup" }),
    );
    expect(r).toEqual({ stdout: "", stderr: "", code: 0 });
  });

  test.each([
    ["garbage on stdin", "{not json", [], "not JSON"],
    ["empty stdin", "", [], "not JSON"],
    ["a missing vault", payload("e2e-6", "friday deploy"), ["--vault", "/nonexistent/lc-vault"], "no vault"],
    ["an unreadable transcript", payload("e2e-7", "nothing matches this"), [], ""],
    ["a bad flag value", payload("e2e-8", "friday deploy"), ["--budget", "lots"], "--budget"],
  ])("%s: exit 0, nothing on stdout", async (_, stdin, args, message) => {
    const r = await hook(stdin.replace(TRANSCRIPT, "/nonexistent/t.jsonl"), args);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(message);
  });

  test.each([
    ["--vault before the command", ["--vault", "VAULT", "hook", "--bogus"]],
    ["--vault=… and --json", ["--vault=VAULT", "--json", "hook", "--bogus"]],
    ["an unknown flag after the command", ["hook", "--vault", "VAULT", "--vualt", "x", "--json"]],
  ])("a usage error (%s) still exits 0 with nothing on stdout", async (_, args) => {
    const argv = args.map((a) => a.replace("VAULT", vault));
    const proc = Bun.spawn([bin, ...argv], {
      stdin: new Blob([payload("e2e-u", "friday deploy")]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout as ReadableStream).text(),
      new Response(proc.stderr as ReadableStream).text(),
      proc.exited,
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toContain("unknown flag");
  });

  test.each([
    ["closed by a reader that went away (EPIPE)", "| { exec 0<&-; }"],
    ["a full device (ENOSPC)", "> /dev/full"],
  ])("stdout %s: still exit 0, the reason on stderr", async (_, redirect) => {
    if (redirect.includes("/dev/full") && !fs.existsSync("/dev/full")) return;
    const input = path.join(vault, "stdin.json");
    fs.writeFileSync(input, payload("e2e-9", "friday deploy", { transcript_path: undefined }));
    // The reader side closes at once; the hook needs milliseconds to start, so its write finds no reader.
    const script = `( "$0" hook --vault "$1" --reinject-after 0 --no-log < "$2"; echo "exit=$?" >&2 ) ${redirect}`;
    const proc = Bun.spawn(["sh", "-c", script, bin, vault, input], { stdout: "ignore", stderr: "pipe" });
    const stderr = await new Response(proc.stderr as ReadableStream).text();
    await proc.exited;
    expect(stderr).toContain("exit=0");
    expect(stderr).toMatch(/EPIPE|ENOSPC/);
  });
});
