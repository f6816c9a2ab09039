/**
 * Adoption (README "Index mode and adoption"): an index block names its session and query ids, and an
 * agent that opens a card it listed passes them to `read_card`; that opening is recorded in the
 * vault's state (Store `recordAdoption`, through state.ts), so `check` and `stats --cards` can tell the
 * cards an agent wants from those it never opens. Recording is bookkeeping: a card is read whatever
 * becomes of it, and the answer says what did (`adoption.status`).
 */
import { describeError, LoreError } from "../errors.ts";
import type { AdoptionOutcome } from "../state/index.ts";
import type { Vault } from "../vault/index.ts";
import { cardIdIn, type ServedBook } from "./books.ts";
import type { ReadCardArgs } from "./schemas.ts";
import type { McpState } from "./state.ts";
import { readCardData } from "./tools.ts";

/** What `read_card` says of the ids it was given: the outcome, or `not_recorded` when state failed. */
export interface AdoptionAnswer {
  status: AdoptionOutcome | "not_recorded";
  card: string;
  session: string;
  query: string;
  detail?: string;
}

/** `read_card`: the card, and with a block's ids, its adoption recorded. */
export async function readCardAdopting(vault: Vault, args: ReadCardArgs, state: McpState, book?: ServedBook) {
  const { session, query } = args;
  if ((session === undefined) !== (query === undefined)) {
    throw new LoreError(
      "invalid_input",
      `read_card takes session and query together, as the index block shows them (${session === undefined ? "query" : "session"} was given alone)`,
    );
  }
  const data = readCardData(vault, args, book);
  if (session === undefined || query === undefined) return data;
  const card = cardIdIn(book, data);
  let adoption: AdoptionAnswer;
  try {
    adoption = { status: await state.recordAdoption({ session, query, card }), card, session, query };
  } catch (err) {
    const detail = `the adoption could not be recorded: ${describeError(err)}`;
    adoption = { status: "not_recorded", card, session, query, detail };
  }
  return { ...data, adoption };
}
