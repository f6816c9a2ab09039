// The web manifest (W3C "Web Application Manifest") and the icon it points to: enough for a phone's
// "add to home screen" to give the editor its own window and icon.
import { iconPngBase64 } from "./_icon-png.ts" with { type: "macro" };

/** iOS takes only a bitmap for the home screen, at 180 × 180; drawn when the binary is bundled. */
export const ICON_PNG_PATH = "/icon-180.png";
export const ICON_PNG = Buffer.from(iconPngBase64(180), "base64");

/** A card with a folded corner on the accent colour; scales to any size. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
<rect width="512" height="512" rx="112" fill="#2f5d50"/>
<path d="M150 110h160l70 70v222a20 20 0 0 1-20 20H150a20 20 0 0 1-20-20V130a20 20 0 0 1 20-20z" fill="#f7f3e8"/>
<path d="M310 110v54a16 16 0 0 0 16 16h54z" fill="#c9b98f"/>
<rect x="170" y="220" width="172" height="18" rx="9" fill="#2f5d50"/>
<rect x="170" y="270" width="140" height="18" rx="9" fill="#6f8f84"/>
<rect x="170" y="320" width="160" height="18" rx="9" fill="#6f8f84"/>
</svg>
`;

export function manifest() {
  return {
    name: "lorecards",
    short_name: "lorecards",
    description: "Edit your card book",
    start_url: "/",
    scope: "/",
    display: "standalone",
    orientation: "any",
    background_color: "#f7f5ef",
    theme_color: "#2f5d50",
    icons: [
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "maskable" },
      { src: ICON_PNG_PATH, sizes: "180x180", type: "image/png", purpose: "any" },
    ],
  };
}
