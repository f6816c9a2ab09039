/**
 * The page's files (HTML, script, stylesheet) as bytes, so they can be served with our own headers: a
 * Bun.serve HTML-import route takes none (oven-sh/bun#19123). A compiled binary carries them, built
 * ahead of time, in `HTMLBundle.files`; under `bun run` and `bun test` there is no such list, so the page
 * is bundled here the way Bun.serve would bundle it on start. The HTML is served at `/` and every other
 * file at `/<its name>`, the absolute path the bundled HTML links to.
 */
import path from "node:path";
import type { HTMLBundle } from "bun";

export interface PageFile {
  /** `/` for the page, `/chunk-….js` for the rest. */
  url: string;
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
}

export async function pageFiles(page: HTMLBundle): Promise<PageFile[]> {
  if (page.files !== undefined) {
    return Promise.all(
      page.files.map(async (f) => ({
        url: f.loader === "html" ? "/" : `/${path.basename(f.path)}`,
        bytes: await Bun.file(f.path).bytes(),
        contentType: f.headers["content-type"],
      })),
    );
  }
  const built = await Bun.build({
    entrypoints: [page.index],
    target: "browser",
    minify: true,
    publicPath: "/",
  });
  if (!built.success) throw new Error(`cannot bundle the page: ${built.logs.join("\n")}`);
  return Promise.all(
    built.outputs.map(async (o) => ({
      url: o.path.endsWith(".html") ? "/" : `/${path.basename(o.path)}`,
      bytes: new Uint8Array(await o.arrayBuffer()),
      contentType: o.type,
    })),
  );
}

/** The page's own Content-Security-Policy, from its `<meta http-equiv>` tag: the one source of it. */
export function metaPolicy(html: string): string {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html);
  if (!m) throw new Error("the page has no Content-Security-Policy meta tag");
  return m[1]!;
}
