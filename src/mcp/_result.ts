/**
 * A tool's answer, one way for every tool. Success: the structured content, and the same JSON as text
 * for clients that do not read it (MCP spec, "Structured Content": a tool that returns structured
 * content should also return it serialized). Failure: an `isError` result whose text starts with the
 * LoreError code, so the model sees what to fix, and the code and detail as data in the result's
 * `_meta` (`lorecards/error`), so a program need not parse the text. Not as structured content: a
 * client checks that against the tool's output schema even on an error.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError, type ErrorCode, errorCodeOf } from "../errors.ts";

/** The `_meta` key of a failed tool call's code and detail. */
export const ERROR_META = "lorecards/error";

export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
}

export function toolError(err: unknown): CallToolResult {
  const code: ErrorCode = errorCodeOf(err);
  const detail = describeError(err);
  return {
    content: [{ type: "text", text: `${code}: ${detail}` }],
    isError: true,
    _meta: { [ERROR_META]: { code, detail } },
  };
}
