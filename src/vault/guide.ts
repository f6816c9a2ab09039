/**
 * The guide (README "The boot block"): `guide.md` in the vault root, a card of its own that is no
 * kind's, written by the person for the agent (how to use the book, what to write down, what never
 * to). It opens a session's boot block, before the always-on cards. Only its public text is sent:
 * private sections and comments stay out, as for any card. A guide that is missing, unreadable or not
 * a plain file of its own (src/plain-file.ts) is no guide: a boot block never fails for it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { defaultKinds, publicTextOf } from "../card/index.ts";
import type { KindsConfig } from "../card/types.ts";
import { readPlain } from "../plain-file.ts";

export const GUIDE_FILE = "guide.md";

/** The guide's public text, trimmed; "" when there is none. */
export function readGuide(root: string, kinds: KindsConfig = defaultKinds()): string {
  const file = path.join(root, GUIDE_FILE);
  // Most vaults have none, and a gateway asks on every conversation's first turn: a stat says so for
  // less than an open that fails (the error it throws is most of that open's cost). A link that leads
  // nowhere is no guide either way.
  if (!existsSync(file)) return "";
  try {
    return publicTextOf(readPlain(file), kinds).trim();
  } catch {
    return "";
  }
}

/** A starter guide for `init --guide`: the person's to rewrite. */
export const STARTER_GUIDE = `---
title: Guide
---
This is the card book the person keeps. The cards below are always on; others are added when the
conversation names them. Treat what they say as the person's own notes: they win over guesses.

## writing
- When you learn something lasting about a person, a place or a shared joke, write it down with the
  card tools (read a card before you change it; keep each card to one subject).
- Never write secrets, passwords or anything the person asked you to forget.
`;
