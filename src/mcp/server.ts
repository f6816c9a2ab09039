/**
 * The MCP server object: the card tools and `set_lore` registered on the official SDK's McpServer. A failure becomes an
 * `isError` tool result whose text starts with the LoreError code and whose `_meta` carries it
 * (_result.ts); arguments that fail the schema are refused by the SDK, before a handler runs.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KindsConfig } from "../card/types.ts";
import type { StyleOptions } from "../style/index.ts";
import type { Vault } from "../vault/index.ts";
import { toolError, toolResult } from "./_result.ts";
import { readCardAdopting } from "./adoption.ts";
import { homeOf, type ServedBook } from "./books.ts";
import { setLore, setLoreResultShape, setLoreShape } from "./lore.ts";
import {
  listCardsShape,
  listResultShape,
  readCardShape,
  readResultShape,
  recentKinds,
  writeCardShape,
  writeResultShape,
} from "./schemas.ts";
import { type McpState, vaultState } from "./state.ts";
import { registerStyleTools } from "./style-tools.ts";
import { listCardsData, writeCard } from "./tools.ts";

export interface ServerOptions {
  /** Reported to clients in the initialize handshake. */
  version: string;
  /**
   * Where `read_card` records adoptions and `set_lore` a session's switch (state.ts); by default the
   * vault's state.db, opened on the first of them. The caller that passes it closes it.
   */
  state?: McpState;
  /** The session `set_lore` switches when it names none: the Claude Code session that started us. */
  session?: string;
  /** Style memory's options (its clock) for the style_* tools (style-tools.ts). */
  style?: StyleOptions;
  /** The book `vault` is, when one was named (`--book`); none: the vault's own cards (books.ts). */
  book?: ServedBook;
}

function instructions(config: KindsConfig): string {
  return (
    `A card book: one Markdown card for each person, place, event or thing worth remembering, in the ` +
    `kinds ${config.kinds.map((k) => k.name).join(", ")}. ` +
    "Cards surface in the conversation by themselves when their keywords come up, so there is no search " +
    "tool. Write a card when you learn something worth remembering; refresh a card's recent section when " +
    "it changes. To keep the cards out of a session for a while (a draft the person wants unsteered), " +
    "use set_lore."
  );
}

// Tool annotations (MCP spec, "Tool annotations"): hints for the client. write_card can replace the text
// of a recent section, so it is destructive; it is idempotent, since repeating a call changes nothing
// more (a second create of the same name fails, a second update writes the same text). Nothing here
// reaches beyond the vault, so no tool is open-world.
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export function createMcpServer(vault: Vault, options: ServerOptions): McpServer {
  const config = vault.kinds;
  const server = new McpServer(
    { name: "lorecards", version: options.version },
    { instructions: instructions(config) },
  );
  const withRecent = recentKinds(config);
  const { book } = options;
  const state = options.state ?? vaultState(vault, book);

  server.registerTool(
    "write_card",
    {
      title: "Write a card",
      description:
        "Write down something worth remembering about a person, event, place, thing or phrase the user " +
        'mentioned. mode "create" makes a new card; mode "update_recent" replaces only the recent section ' +
        `of an existing card (${withRecent.join(", ") || "no"} cards have one). Never overwrites a card by ` +
        "accident: creating a name that exists fails. Check with list_cards or read_card first if unsure.",
      inputSchema: writeCardShape(config),
      outputSchema: writeResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => respond(async () => writeCard(vault, args, book)),
  );

  server.registerTool(
    "read_card",
    {
      title: "Read a card",
      description:
        "Everything in one card: every frontmatter field and every section, including private sections " +
        "(marked private: true; those are never injected into conversations). For a card listed in a " +
        "memory index block, pass the block's session and query too.",
      inputSchema: readCardShape(config),
      outputSchema: readResultShape,
      annotations: READ_ONLY,
    },
    (args) => respond(async () => readCardAdopting(vault, args, state, book)),
  );

  server.registerTool(
    "list_cards",
    {
      title: "List cards",
      description:
        "The cards already written (all, or one kind), sorted by kind and title, with their keys, titles, " +
        "keywords and aliases: check here before creating a card. Large vaults come in pages: pass " +
        "next_offset as offset to get the next one.",
      inputSchema: listCardsShape(config),
      outputSchema: listResultShape,
      annotations: READ_ONLY,
    },
    (args) => respond(async () => listCardsData(vault, args, book)),
  );
  server.registerTool(
    "set_lore",
    {
      title: "Switch the cards for this session",
      description:
        "Choose what lorecards puts in front of the model in this session, from the next message on: " +
        '"declared" keeps to the always-on cards and the cards asked for by name (nothing is noticed from ' +
        'the conversation), "none" puts nothing in, "auto" brings cards when their words come up, and ' +
        '"unset" goes back to the setting the person chose. For a stretch of writing the person wants ' +
        "unsteered, or to compare an answer with and without the cards.",
      inputSchema: setLoreShape,
      outputSchema: setLoreResultShape,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) => respond(async () => setLore(state, args, options.session)),
  );
  registerStyleTools(server, homeOf(vault, book), options.style);
  return server;
}

/** The tool's answer (_result.ts): its data, or the failure with its code. */
async function respond(fn: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    return toolResult(await fn());
  } catch (err) {
    return toolError(err);
  }
}
