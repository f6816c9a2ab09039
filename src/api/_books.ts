/**
 * A book in and out (docs/HTTP-API.md): `POST /api/import` (a lorebook or a character card, as JSON or as
 * the file itself, with its progress as it goes when the page asks for it) and `GET /api/export`.
 */
import { LoreError } from "../errors.ts";
import { loreErrorResponse } from "../http/index.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportBook,
  importBook,
  importIntoBook,
} from "../interop/index.ts";
import { MAIN_BOOK } from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { jsonObject, readBytes } from "./_body.ts";
import type { Context } from "./_routes.ts";

/**
 * Import. A JSON body is `{"book": <lorebook or card JSON>, "kind", "force", "filename"}`; any other
 * content type is the file itself (card PNG, CHARX, a JSON file) with `?kind=&force=&filename=`.
 */
export async function importLorebook(ctx: Context, req: Request, url: URL) {
  const bytes = await readBytes(req, ctx.limits.import);
  const type = req.headers.get("content-type") ?? "";
  const options = type.startsWith("application/json")
    ? importOptionsFromJson(bytes)
    : importOptionsFromUrl(bytes, url);
  // `?book=`: into that book (made when new), or `auto`, the file's own (docs/BOOKS.md); else the vault's own.
  const into = bookParam(req, url);
  const run = async (onProgress?: (done: number, total: number) => void) => {
    const given = {
      kind: options.kind ?? "entry",
      force: options.force,
      filename: options.filename ?? "the uploaded book",
      onProgress,
    };
    if (into === undefined) {
      const result = await importBook(ctx.vault, options.book, given);
      ctx.engine.invalidate();
      return toWire(result);
    }
    const book = into === "auto" ? undefined : into;
    const result = await importIntoBook(ctx.vault.root, options.book, { ...given, book });
    ctx.engine.booksChanged();
    ctx.engine.book(result.into.name)?.invalidate();
    return toWire(result);
  };
  if (!(req.headers.get("accept") ?? "").includes(NDJSON)) return run();
  return progressStream(run);
}

/** The header that names the book a request is about, for a client that keeps the query string for others. */
export const BOOK_HEADER = "x-lorecards-book";

/** The book a request names (`?book=`, else the header), lower case; undefined for the vault's own cards. */
export function bookParam(req: Request, url: URL): string | undefined {
  const given = (url.searchParams.get("book") ?? req.headers.get(BOOK_HEADER) ?? "").trim().toLowerCase();
  return given === "" || given === MAIN_BOOK ? undefined : given;
}

const NDJSON = "application/x-ndjson";
/** Progress lines an import sends at most, so a book of ten thousand cards is not ten thousand lines. */
const PROGRESS_LINES = 100;

/**
 * An import that reports as it goes, for a page that shows progress: newline-delimited JSON, a
 * `{"progress": {done, total}}` line now and then (the files written and moved into place, out of
 * `total`), then `{"result": …}`, or `{"error", "detail"}` when it failed (nothing was written then).
 * The status is 200 once the body was read: a failure after that is in the last line.
 */
function progressStream(
  run: (onProgress: (done: number, total: number) => void) => Promise<unknown>,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (line: unknown) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      let sent = -1;
      try {
        const result = await run((done, total) => {
          const step = Math.floor((done / Math.max(total, 1)) * PROGRESS_LINES);
          if (step === sent) return;
          sent = step;
          send({ progress: { done, total } });
        });
        send({ result });
      } catch (err) {
        send(await loreErrorResponse(err).json());
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": `${NDJSON}; charset=utf-8` } });
}

interface ImportRequest {
  book: unknown;
  kind?: string;
  force: boolean;
  filename?: string;
}

function importOptionsFromJson(bytes: Uint8Array): ImportRequest {
  const input = jsonObject(bytes);
  if (input.book === undefined) {
    throw new LoreError(
      "invalid_input",
      'import needs {"book": <lorebook or card JSON>}, or the file itself as application/octet-stream',
    );
  }
  if (input.kind !== undefined && typeof input.kind !== "string")
    throw new LoreError("invalid_input", "kind must be a string");
  if (input.force !== undefined && typeof input.force !== "boolean")
    throw new LoreError("invalid_input", "force must be true or false");
  return {
    book: input.book,
    kind: input.kind as string | undefined,
    force: input.force === true,
    filename: typeof input.filename === "string" ? input.filename : undefined,
  };
}

function importOptionsFromUrl(bytes: Uint8Array, url: URL): ImportRequest {
  const force = url.searchParams.get("force");
  if (force !== null && !["0", "1", "true", "false"].includes(force))
    throw new LoreError("invalid_input", "force must be true or false");
  return {
    book: bytes,
    kind: url.searchParams.get("kind") ?? undefined,
    force: force === "1" || force === "true",
    filename: url.searchParams.get("filename") ?? undefined,
  };
}

/** Export: `?format=st|lorebook_v3|card-json|card-png|charx` (default st, the SillyTavern lorebook). */
export async function exportLorebook(ctx: Context, url: URL) {
  const format = url.searchParams.get("format") ?? "st";
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new LoreError(
      "invalid_input",
      `unknown export format "${format}" (one of ${EXPORT_FORMATS.join(", ")})`,
    );
  }
  const file = await exportBook(ctx.vault, format as ExportFormat);
  const text = file.contentType.startsWith("application/json");
  return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": text ? `${file.contentType}; charset=utf-8` : file.contentType,
      "content-disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
    },
  });
}
