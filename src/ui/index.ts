/**
 * ui/ owns the web editor's page: one HTML file with its script and stylesheet, bundled into the binary
 * by Bun's HTML import and served from memory, plus the web manifest and icons that let a phone add it
 * to the home screen. It loads nothing from anywhere else and holds no card data: everything it shows
 * comes from the API (api/), which it reaches with the token the `?token=` link gave it.
 */
import page from "./index.html";
import { ICON_PNG, ICON_PNG_PATH, ICON_SVG, manifest } from "./manifest.ts";

/** Static routes for Bun.serve: the page, its manifest and icons. They carry no card data. */
export function uiRoutes() {
  return {
    "/": page,
    "/manifest.webmanifest": new Response(JSON.stringify(manifest()), {
      headers: { "content-type": "application/manifest+json; charset=utf-8" },
    }),
    "/icon.svg": new Response(ICON_SVG, {
      headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" },
    }),
    [ICON_PNG_PATH]: new Response(ICON_PNG, {
      headers: { "content-type": "image/png", "cache-control": "public, max-age=86400" },
    }),
  };
}
