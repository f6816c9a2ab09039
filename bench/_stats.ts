/**
 * Numbers and printing shared by the benchmark scripts: percentiles, ratios, aligned tables, the
 * options they take and the CPU a process used. Timing a process is _floor.ts's; the goals it is held to are _goals.ts's.
 */

import { readdirSync, readFileSync } from "node:fs";

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function ms(value: number): string {
  if (value < 1) return `${(value * 1000).toFixed(0)} µs`;
  return value < 1000 ? `${value.toFixed(2)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** `value` as a multiple of `base`: "2.31×". */
export function ratio(value: number, base: number): string {
  const r = value / base;
  return `${r < 10 ? r.toFixed(2) : r < 100 ? r.toFixed(1) : r.toFixed(0)}×`;
}

export function mb(value: number): string {
  return `${value.toFixed(1)} MB`;
}

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((cell, c) => String(cell).padEnd(widths[c]!)).join("  ")).join("\n");
}

/** `--name value` from argv, else the fallback. */
export function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

/** A process's resident memory in MB (Linux /proc: VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

/**
 * CPU time the JIT compiler threads of a Bun process (JavaScriptCore's, named `JITWorker`) have used
 * so far, in seconds (Linux /proc; NaN elsewhere).
 */
export function jitSecondsOf(pid: number): number {
  try {
    let ticks = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      if (!stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).startsWith("JIT")) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time a process has used so far, all its threads, in seconds (Linux /proc; NaN elsewhere); with
 * `children`, that of its children that have exited too.
 */
export function cpuSecondsOf(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "pid (name) ": state is field 3, utime and stime fields 14 and 15, cutime and cstime 16
    // and 17, in clock ticks (100 Hz).
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    return (fields[11]! + fields[12]! + (children ? fields[13]! + fields[14]! : 0)) / 100;
  } catch {
    return Number.NaN;
  }
}
