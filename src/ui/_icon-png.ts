// The home-screen icon as a PNG, for iOS, which ignores SVG in `apple-touch-icon`. There is no
// rasterizer to hand, so the shapes of ICON_SVG (manifest.ts) are drawn here pixel by pixel and
// written as a PNG (RFC 2083): signature, IHDR, one zlib-deflated IDAT, IEND, each chunk with its CRC.
// manifest.ts runs `iconPngBase64` as a Bun macro, so this happens when the binary is bundled, not at
// run time. The square is full-bleed and opaque: iOS rounds the corners itself and would paint any
// transparent pixel black.
import zlib from "node:zlib";

type Rgb = readonly [number, number, number];
const THEME: Rgb = [0x2f, 0x5d, 0x50];
const PAPER: Rgb = [0xf7, 0xf3, 0xe8];
const FOLD: Rgb = [0xc9, 0xb9, 0x8f];
const LINE: Rgb = [0x6f, 0x8f, 0x84];

/** Inside an axis-aligned rectangle whose corners are rounded with radius r (in the 512 grid). */
function inRoundRect(x: number, y: number, left: number, top: number, w: number, h: number, r: number) {
  if (x < left || x > left + w || y < top || y > top + h) return false;
  const cx = Math.min(Math.max(x, left + r), left + w - r);
  const cy = Math.min(Math.max(y, top + r), top + h - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** Below the card's cut corner: the diagonal from (310,110) to (380,180). */
const belowCut = (x: number, y: number) => x - 310 <= y - 110;

/** The colour at a point of the 512 × 512 drawing, topmost shape first (same order as ICON_SVG). */
function colourAt(x: number, y: number): Rgb {
  const lines: [number, number, Rgb][] = [
    [220, 172, THEME],
    [270, 140, LINE],
    [320, 160, LINE],
  ];
  for (const [top, w, colour] of lines) if (inRoundRect(x, y, 170, top, w, 18, 9)) return colour;
  const inFold =
    x >= 310 && y <= 180 && belowCut(x, y) && !(x < 326 && y > 164 && (x - 326) ** 2 + (y - 164) ** 2 > 256);
  if (inFold) return FOLD;
  if (inRoundRect(x, y, 130, 110, 250, 312, 20) && belowCut(x, y)) return PAPER;
  return THEME;
}

/** RGB rows, each led by filter byte 0; 4 × 4 samples per pixel smooth the edges. */
function pixels(size: number): Uint8Array {
  const out = new Uint8Array(size * (1 + size * 3));
  const grid = 4;
  const scale = 512 / size;
  for (let py = 0; py < size; py++) {
    const row = py * (1 + size * 3);
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0];
      for (let sy = 0; sy < grid; sy++)
        for (let sx = 0; sx < grid; sx++) {
          const c = colourAt((px + (sx + 0.5) / grid) * scale, (py + (sy + 0.5) / grid) * scale);
          for (let i = 0; i < 3; i++) sum[i]! += c[i]!;
        }
      for (let i = 0; i < 3; i++) out[row + 1 + px * 3 + i] = Math.round(sum[i]! / (grid * grid));
    }
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, zlib.crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A size × size opaque RGB PNG of the icon. */
export function iconPng(size: number): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, deflate, adaptive filter, no interlace
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(pixels(size), { level: 9 })),
    chunk("IEND", new Uint8Array(0)),
  ];
  return Buffer.concat(parts);
}

/** For the bundle-time macro: a macro can return a string but not bytes. */
export function iconPngBase64(size: number): string {
  return Buffer.from(iconPng(size)).toString("base64");
}
