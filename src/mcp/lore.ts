/**
 * `set_lore`: the writing app's `auto_lore()` / `no_lore()` for an agent, per session. The gateway
 * takes the switch per request (`X-Lorecards-Lore`) and the hook per install (`--lore`); an agent sets
 * it for the session it works in, kept in the vault's state (Store `setLore`), and the hook reads it
 * for that Claude Code session and the gateway for every conversation carrying the session id (its
 * `X-Lorecards-Conversation`, or Claude Code's own session header), from their next message on. A
 * request's own header still wins; `unset` gives the say back to the hook's or the gateway's setting.
 * The session is the one named, else the Claude Code session that started this server
 * (`CLAUDE_CODE_SESSION_ID`, which Claude Code gives a stdio server since 2.1.154).
 */
import * as z from "zod";
import { LORE_SWITCHES, type LoreSwitch } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import type { McpState } from "./state.ts";

const SETTINGS = [...LORE_SWITCHES, "unset"] as const;

/** What each setting does, for the model that reads the answer and the person who reads the docs. */
const MEANING: Record<(typeof SETTINGS)[number], string> = {
  auto: "cards come in when their words come up, with the always-on cards",
  declared: "only the always-on cards and the cards asked for by name come in; nothing is noticed",
  none: "nothing comes in at all, not even the always-on cards",
  unset: "the hook's or the gateway's own setting applies again",
};

export const setLoreShape = {
  lore: z
    .enum(SETTINGS)
    .describe(
      `What lorecards puts in front of the model in this session from the next message on: ${SETTINGS.map((s) => `"${s}": ${MEANING[s]}`).join("; ")}.`,
    ),
  session: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .optional()
    .describe(
      "The session to switch: a Claude Code session id, or the conversation id a client sends the " +
        "gateway as X-Lorecards-Conversation. Leave it out in Claude Code: the session you are in.",
    ),
};

export const setLoreResultShape = {
  session: z.string(),
  lore: z.enum(LORE_SWITCHES).nullable().describe("The switch now set; null when unset."),
  detail: z.string().describe("What it means, in a sentence."),
};

export type SetLoreArgs = z.infer<z.ZodObject<typeof setLoreShape>>;

/** Sets the switch; `inSession` is the session this server was started in, if any. */
export async function setLore(state: McpState, args: SetLoreArgs, inSession: string | undefined) {
  const session = args.session ?? inSession;
  if (session === undefined)
    throw new LoreError(
      "invalid_input",
      "set_lore needs a session: this server was not started by a Claude Code session (no CLAUDE_CODE_SESSION_ID), so name one",
    );
  const lore: LoreSwitch | null = args.lore === "unset" ? null : args.lore;
  await state.setLore(session, lore);
  return { session, lore, detail: `From the next message in this session, ${MEANING[args.lore]}.` };
}
