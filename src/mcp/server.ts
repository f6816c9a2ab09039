/**
 * The MCP server object: three tools registered on the official SDK's McpServer. A failure becomes an
 * `isError` tool result whose text starts with the LoreError code, so the model sees what to fix;
 * arguments that fail the schema are refused by the SDK the same way, before a handler runs.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError, isLoreError } from "../errors.ts";
import type { Vault } from "../vault/index.ts";
import { listCardsShape, readCardShape, writeCardShape } from "./schemas.ts";
import { listCardsData, readCardData, writeCard } from "./tools.ts";

export interface ServerOptions {
  /** Reported to clients in the initialize handshake. */
  version: string;
}

const INSTRUCTIONS =
  "A card book: one Markdown card per person, event, place, thing or in-joke the user mentions. Cards " +
  "surface in the conversation by themselves when their keywords come up, so there is no search tool. " +
  "Write a card when you learn something worth remembering; refresh a card's recent section when it changes.";

export function createMcpServer(vault: Vault, options: ServerOptions): McpServer {
  const server = new McpServer(
    { name: "lorecards", version: options.version },
    { instructions: INSTRUCTIONS },
  );
  const kinds = vault.kinds.kinds.map((k) => k.name);

  server.registerTool(
    "write_card",
    {
      title: "Write a card",
      description:
        "Write down something worth remembering about a person, event, place, thing or phrase the user " +
        'mentioned. mode "create" makes a new card; mode "update_recent" replaces only the recent section ' +
        "of an existing card (people, place and thing cards have one). Never overwrites a card by accident: " +
        "creating a name that exists fails. Read the card first (read_card) if unsure.",
      inputSchema: writeCardShape(kinds),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) => respond(async () => writeCard(vault, args)),
  );

  server.registerTool(
    "read_card",
    {
      title: "Read a card",
      description:
        "Everything in one card: every frontmatter field and every section, including private sections " +
        "(marked private: true; those are never injected into conversations).",
      inputSchema: readCardShape(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => respond(async () => readCardData(vault, args)),
  );

  server.registerTool(
    "list_cards",
    {
      title: "List cards",
      description:
        "Every card (or every card of one kind) with its title, key, keywords and aliases, to see what is " +
        "already written down before creating a card.",
      inputSchema: listCardsShape(kinds),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => respond(async () => listCardsData(vault, args)),
  );
  return server;
}

async function respond(fn: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const data = await fn();
    return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }] };
  } catch (err) {
    const code = isLoreError(err) ? err.code : "internal";
    return { content: [{ type: "text", text: `${code}: ${describeError(err)}` }], isError: true };
  }
}
