/**
 * A recording pass-through proxy on 127.0.0.1:0, for end-to-end tests that put a real client in front
 * of the gateway (client → recorder → gateway): it keeps what the client really sent, so a test can
 * compare it with what the upstream received. Method, path, query, headers and body go on verbatim;
 * only the hop-by-hop headers (RFC 9110 §7.6.1), `host` and `content-length` are left to fetch, which
 * frames the request itself. Nothing is decompressed (`decompress: false`: Bun would otherwise inflate
 * while `content-encoding` still names the coding) and the answer streams back as it arrives, while a
 * copy of it is kept as text.
 */

export interface Recording {
  method: string;
  /** Path with its query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names, as the client sent them. */
  headers: Record<string, string>;
  /** The request body as text, exactly as it arrived (empty without a body). */
  body: string;
  /** The answer's status (502 when the target could not be reached). */
  status: number;
  responseHeaders: Record<string, string>;
  /** The answer's body as the client received it; complete once `done` resolves. */
  answer: string;
  done: Promise<void>;
}

export interface Recorder {
  url: string;
  received: Recording[];
  /** Resolves when every answer so far has been passed on in full (or broke off). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

function passable(source: Headers, extra: readonly string[]): Headers {
  const out = new Headers(source);
  const listed = (source.get("connection") ?? "").split(",").map((s) => s.trim().toLowerCase());
  for (const name of [...HOP_BY_HOP, ...listed, ...extra]) if (name) out.delete(name);
  return out;
}

/** Forwards everything to `target` (an origin, e.g. the gateway's `url`). */
export function startRecorder(target: string): Recorder {
  const received: Recording[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A model may think for a while before its first byte; the client decides when to give up.
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const rec: Recording = {
        method: req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(req.headers.entries()),
        body: body ? new TextDecoder().decode(body) : "",
        status: 0,
        responseHeaders: {},
        answer: "",
        done: Promise.resolve(),
      };
      received.push(rec);
      let res: Response;
      try {
        res = await fetch(target + rec.path, {
          method: req.method,
          headers: passable(req.headers, ["host", "content-length"]),
          body,
          redirect: "manual",
          decompress: false,
        } as RequestInit);
      } catch (err) {
        rec.status = 502;
        rec.answer = `recorder: ${target} unreachable: ${(err as Error).message}`;
        return new Response(rec.answer, { status: 502 });
      }
      rec.status = res.status;
      rec.responseHeaders = Object.fromEntries(res.headers.entries());
      const headers = passable(res.headers, ["content-length"]);
      if (!res.body) return new Response(null, { status: res.status, statusText: res.statusText, headers });
      const [toClient, toKeep] = res.body.tee();
      rec.done = new Response(toKeep).text().then(
        (text) => {
          rec.answer = text;
        },
        () => {},
      );
      return new Response(toClient, { status: res.status, statusText: res.statusText, headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    settled: async () => {
      await Promise.all(received.map((r) => r.done));
    },
    close: async () => {
      await server.stop(true);
    },
  };
}
