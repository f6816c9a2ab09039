/**
 * ui/ owns the web editor's page: one HTML file with its script and stylesheet, bundled into the binary
 * by Bun's HTML import and served from memory, plus the web manifest and icons that let a phone add it
 * to the home screen. It loads nothing from anywhere else and holds no card data: everything it shows
 * comes from the API (api/), which it reaches with the token the `?token=` link gave it. Every file goes
 * out with the security headers (http/ `securityHeaders`), whose policy is the page's own meta tag plus
 * `frame-ancestors 'none'`.
 */
import { type Handler, securityHeaders } from "../http/index.ts";
import { metaPolicy, pageFiles } from "./_bundle.ts";
import page from "./index.html";
import { ICON_PNG, ICON_PNG_PATH, ICON_SVG, manifest } from "./manifest.ts";

export interface UiRoutes {
  /** Exact path → handler, for listen()'s `routes`. */
  routes: Record<string, Handler>;
  /** The security headers: set them on every other response of the editor's server too. */
  headers: Record<string, string>;
}

/** The page, its bundled files, the manifest and icons. They carry no card data. */
export async function uiRoutes(): Promise<UiRoutes> {
  const files = await pageFiles(page);
  const html = files.find((f) => f.url === "/");
  if (!html) throw new Error("the bundled page has no HTML file");
  const headers = securityHeaders(metaPolicy(new TextDecoder().decode(html.bytes)));
  const routes: Record<string, Handler> = {};
  for (const f of files) {
    // Script and stylesheet names carry a content hash: a new binary means new names.
    const cache = f.url === "/" ? "no-cache" : "public, max-age=31536000, immutable";
    routes[f.url] = fileRoute(f.bytes, { ...headers, "content-type": f.contentType, "cache-control": cache });
  }
  const day = "public, max-age=86400";
  routes["/manifest.webmanifest"] = fileRoute(new TextEncoder().encode(JSON.stringify(manifest())), {
    ...headers,
    "content-type": "application/manifest+json; charset=utf-8",
  });
  routes["/icon.svg"] = fileRoute(new TextEncoder().encode(ICON_SVG), {
    ...headers,
    "content-type": "image/svg+xml",
    "cache-control": day,
  });
  routes[ICON_PNG_PATH] = fileRoute(new Uint8Array(ICON_PNG), {
    ...headers,
    "content-type": "image/png",
    "cache-control": day,
  });
  return { routes, headers };
}

/** A file from memory: GET and HEAD, with an ETag so a revalidating browser gets a 304. */
function fileRoute(bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string>): Handler {
  const etag = `"${Bun.hash(bytes).toString(16)}"`;
  const all = { ...headers, etag };
  return (req) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return new Response(null, { status: 405, headers: { ...headers, allow: "GET, HEAD" } });
    }
    if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers: all });
    if (req.method === "HEAD") {
      return new Response(null, { headers: { ...all, "content-length": String(bytes.byteLength) } });
    }
    return new Response(bytes, { headers: all });
  };
}
