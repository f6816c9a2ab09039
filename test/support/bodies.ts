/**
 * Request bodies built from one neutral conversation, so a suite can say "this conversation" once and
 * run it through every protocol; each protocol's builders live with its descriptor (protocols/).
 */

export { type Conversation, type Msg, type Part, PIXEL } from "./protocols/_shared.ts";
export { anthropicBody, anthropicToolTurn } from "./protocols/anthropic.ts";
export { openaiBody, openaiToolTurn } from "./protocols/openai.ts";
export { responsesBody, responsesToolTurn } from "./protocols/responses.ts";

/** The messages of an upstream body as the conformance suite compares them. */
export function messagesOf(body: string): Record<string, unknown>[] {
  return (JSON.parse(body) as { messages: Record<string, unknown>[] }).messages;
}
