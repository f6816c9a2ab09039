/**
 * The refresher a server hands folder scans and snapshot rebuilds to (recall/source.ts): this same
 * program run as `lorecards refresh --vault <root>`, in a process of its own, so that work never
 * shares a thread with requests, nor leaves its memory peak in the server.
 */
import { setPriority } from "node:os";
import type { Refresher } from "../recall/index.ts";
import { LOW_PRIORITY, selfCommand } from "./_self.ts";

export function selfRefresher(root: string): Refresher {
  return async () => {
    const proc = Bun.spawn([...selfCommand(), "refresh", "--vault", root, "--json"], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    // Background work: on a small machine it must not take the cores the server answers on.
    try {
      setPriority(proc.pid, LOW_PRIORITY);
    } catch {
      // not allowed here: it runs at the server's priority
    }
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code !== 0) throw new Error(`lorecards refresh exited with ${code}: ${stderr.trim()}`);
  };
}
