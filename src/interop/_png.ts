/**
 * PNG chunks, read strictly and written back untouched (PNG spec, ISO/IEC 15948: 8-byte signature,
 * then length + type + data + CRC-32 over type and data, ending with IEND). Card data lives in `tEXt`
 * chunks as base64 (Character Card spec 5.2): `ccv3` wins over `chara`, keywords compared without case.
 */

import { deflateSync } from "node:zlib";
import { badFile } from "./_model.ts";

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const MAX_CHUNK = 0x7fffffff;

export interface PngChunk {
  type: string;
  data: Uint8Array;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(parts: Uint8Array[]): number {
  let c = 0xffffffff;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) c = CRC_TABLE[(c ^ part[i]!) & 0xff]! ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);
}

/** Every chunk in order; refuses a wrong signature, a length past the end, a bad CRC, no IEND. */
export function readChunks(bytes: Uint8Array, file: string): PngChunk[] {
  if (!isPng(bytes)) throw badFile(file, "not a PNG file (bad signature)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let pos = 8;
  while (true) {
    if (pos + 8 > bytes.length) throw badFile(file, `PNG is truncated (chunk header at byte ${pos})`);
    const length = view.getUint32(pos);
    const typeBytes = bytes.subarray(pos + 4, pos + 8);
    const type = String.fromCharCode(...typeBytes);
    if (!/^[A-Za-z]{4}$/.test(type)) throw badFile(file, `PNG chunk at byte ${pos} has an invalid type`);
    if (length > MAX_CHUNK || pos + 12 + length > bytes.length) {
      throw badFile(file, `PNG is truncated (chunk ${type} at byte ${pos} runs past the end)`);
    }
    const data = bytes.subarray(pos + 8, pos + 8 + length);
    const stored = view.getUint32(pos + 8 + length);
    if (crc32([typeBytes, data]) !== stored)
      throw badFile(file, `PNG chunk ${type} at byte ${pos} has a bad CRC`);
    if (chunks.length === 0 && type !== "IHDR") throw badFile(file, "PNG does not start with IHDR");
    chunks.push({ type, data });
    pos += 12 + length;
    if (type === "IEND") return chunks;
  }
}

export function writeChunks(chunks: PngChunk[]): Uint8Array {
  const size = 8 + chunks.reduce((n, c) => n + 12 + c.data.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(SIGNATURE, 0);
  let pos = 8;
  for (const chunk of chunks) {
    const typeBytes = new TextEncoder().encode(chunk.type);
    view.setUint32(pos, chunk.data.length);
    out.set(typeBytes, pos + 4);
    out.set(chunk.data, pos + 8);
    view.setUint32(pos + 8 + chunk.data.length, crc32([typeBytes, chunk.data]));
    pos += 12 + chunk.data.length;
  }
  return out;
}

/** A tEXt chunk's keyword and Latin-1 text (PNG spec 11.3.4.3). */
export function readText(chunk: PngChunk): { keyword: string; text: string } | null {
  if (chunk.type !== "tEXt") return null;
  const nul = chunk.data.indexOf(0);
  if (nul <= 0) return null;
  const latin1 = new TextDecoder("latin1");
  return {
    keyword: latin1.decode(chunk.data.subarray(0, nul)),
    text: latin1.decode(chunk.data.subarray(nul + 1)),
  };
}

export function textChunk(keyword: string, text: string): PngChunk {
  const bytes = new Uint8Array(keyword.length + 1 + text.length);
  for (let i = 0; i < keyword.length; i++) bytes[i] = keyword.charCodeAt(i) & 0xff;
  for (let i = 0; i < text.length; i++) bytes[keyword.length + 1 + i] = text.charCodeAt(i) & 0xff;
  return { type: "tEXt", data: bytes };
}

/** Whether a UTF-16 unit is of the base64 alphabet (RFC 4648 section 4): A–Z, a–z, 0–9, `+`, `/`. */
function inAlphabet(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

/**
 * What is wrong with `packed` as base64, or null. One pass over it: a regular expression with a
 * repeated group gave up on a chunk of some megabytes (a 13 MB card was "not valid base64").
 */
function base64Problem(packed: string): string | null {
  const pad = packed.endsWith("==") ? 2 : packed.endsWith("=") ? 1 : 0;
  const body = packed.length - pad;
  for (let i = 0; i < body; i++) {
    if (!inAlphabet(packed.charCodeAt(i))) {
      const c = packed.codePointAt(i)!;
      return `it holds ${JSON.stringify(String.fromCodePoint(c))} (U+${c.toString(16).toUpperCase().padStart(4, "0")}) at character ${i + 1}`;
    }
  }
  if (body % 4 === 1)
    return `its length (${body} characters, not counting padding) leaves one character over`;
  if (pad > 0 && packed.length % 4 !== 0) return "its padding does not fit its length";
  return null;
}

/**
 * Base64 (RFC 4648 section 4) decoded as UTF-8. Line breaks and spaces are skipped and the final
 * padding may be missing, as SillyTavern's reader (Node's Buffer) allows; any other character is refused.
 */
export function decodeBase64Text(text: string, what: string, file: string): string {
  const packed = text.replace(/[\t\n\r ]+/g, "");
  const problem = base64Problem(packed);
  if (problem !== null) throw badFile(file, `${what} is not valid base64: ${problem}`);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(packed, "base64"));
  } catch (err) {
    throw badFile(file, `${what} is not UTF-8 text`, err);
  }
}

export function encodeBase64Text(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

/** The card JSON text a PNG carries: `ccv3` if present, else `chara` (spec 5.2.2). */
export function cardTextFromPng(bytes: Uint8Array, file: string): { text: string; chunk: "ccv3" | "chara" } {
  const found = new Map<string, string>();
  for (const chunk of readChunks(bytes, file)) {
    const t = readText(chunk);
    if (!t) continue;
    const key = t.keyword.toLowerCase();
    if ((key === "ccv3" || key === "chara") && !found.has(key)) found.set(key, t.text);
  }
  for (const key of ["ccv3", "chara"] as const) {
    const text = found.get(key);
    if (text !== undefined)
      return { text: decodeBase64Text(text, `PNG tEXt chunk "${key}"`, file), chunk: key };
  }
  throw badFile(file, 'PNG carries no character card (no tEXt chunk "ccv3" or "chara")');
}

/** The chunks of `base` that are not a card: the picture and whatever else it carries. */
function pictureChunks(base: Uint8Array, file: string): PngChunk[] {
  return readChunks(base, file).filter((c) => {
    const key = readText(c)?.keyword.toLowerCase();
    return key !== "ccv3" && key !== "chara";
  });
}

/** `base` without its card chunks: the picture alone (a CHARX's icon). */
export function withoutCard(base: Uint8Array, file: string): Uint8Array {
  return writeChunks(pictureChunks(base, file));
}

/** Replaces any card chunks of `base` with the given ones, keeping every other chunk in place. */
export function embedCard(
  base: Uint8Array,
  texts: { ccv3: string; chara: string },
  file: string,
): Uint8Array {
  const kept = pictureChunks(base, file);
  const end = kept.findIndex((c) => c.type === "IEND");
  const cards = [
    textChunk("chara", encodeBase64Text(texts.chara)),
    textChunk("ccv3", encodeBase64Text(texts.ccv3)),
  ];
  return writeChunks([...kept.slice(0, end), ...cards, ...kept.slice(end)]);
}

/** A valid 1×1 transparent PNG, for a card made from nothing. */
export function tinyPng(): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, 1);
  view.setUint32(4, 1);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, adaptive filter, no interlace
  const idat = new Uint8Array(deflateSync(Uint8Array.of(0, 0, 0, 0, 0)));
  return writeChunks([
    { type: "IHDR", data: ihdr },
    { type: "IDAT", data: idat },
    { type: "IEND", data: new Uint8Array(0) },
  ]);
}
