/**
 * A server of the tests in a process of its own (test/support/*-process.ts): started with `bun`, its
 * base URL read from the first line of its stdout, its stderr kept.
 */
import path from "node:path";
import { type StreamText, streamText } from "./wait.ts";

const BUN = path.resolve("node_modules/.bin/bun");

export interface ChildServer {
  url: string;
  stderr: StreamText;
  proc: Bun.Subprocess;
  stop(): Promise<void>;
}

export async function startChild(script: string, args: readonly string[] = []): Promise<ChildServer> {
  const proc = Bun.spawn([BUN, script, ...args], { stdout: "pipe", stderr: "pipe" });
  const stderr = streamText(proc.stderr);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${script} exited before listening: ${stderr.text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: text.trim(),
    stderr,
    proc,
    stop: async () => {
      proc.kill("SIGKILL"); // a hung server (the failure some tests look for) ignores SIGTERM
      await proc.exited;
    },
  };
}
