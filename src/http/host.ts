/** Host headers: splitting `name:port`, and which names only this machine can reach. */

/** `example.org:8766` / `[::1]:8766` → hostname and port (undefined when absent). */
export function splitHost(value: string): { name: string; port?: number } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return null;
  return {
    name: m[1]!.toLowerCase().replace(/\.$/, ""),
    port: m[2] === undefined ? undefined : Number(m[2]),
  };
}

/** Hosts that only this machine can reach. Anything else needs a token. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h.endsWith(".localhost")) return true;
  return /^127(?:\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1";
}
