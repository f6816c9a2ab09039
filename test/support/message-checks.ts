/**
 * Checks that follow a Chat Completions message by what it is rather than where it sits, for a client
 * that rebuilds its prompt every turn (SillyTavern drops a World Info message, inserts another inside
 * the history, places its Author's Note anew): a message is the same one on a later request when its
 * role and its content as the model reads it are (the n-th such message matching the n-th). The
 * gateway inserts no message with its default flags, so upstream message j is the client's message j.
 * A text completion's turns are read as messages too (`chatmlTurns`).
 * Each check returns readable problems, empty when the guarantee holds; requests are numbered from 1.
 */
import { cardsIn, upstreamBody } from "./client-checks.ts";
import type { Exchange } from "./client-replay.ts";
import { canonicalContent } from "./protocols/_shared.ts";

export type Message = { role: string; content: unknown };

export const messagesOf = (body: Record<string, unknown> | null): Message[] =>
  (body?.messages ?? []) as Message[];

/** How a check reads a body's messages. */
export type Reader = (body: Record<string, unknown> | null) => Message[];

/**
 * A text completion's ChatML prompt as messages: what comes before its first turn (SillyTavern's story
 * string), then each `<|im_start|>` turn, its role the header line and its content everything after
 * it (the gateway writes a block at the start of a user turn's content, as in front of a message).
 */
export const chatmlTurns: Reader = (body) => {
  const prompt = typeof body?.prompt === "string" ? body.prompt : "";
  const [preamble = "", ...turns] = prompt.split("<|im_start|>");
  return [
    { role: "preamble", content: preamble },
    ...turns.map((t) => {
      const eol = t.indexOf("\n");
      return eol === -1 ? { role: t, content: "" } : { role: t.slice(0, eol), content: t.slice(eol + 1) };
    }),
  ];
};

export const textOf = (m: Message | undefined): string =>
  typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");

const keyOf = (m: Message) => JSON.stringify([m.role, canonicalContent(m.content)]);

/**
 * For each message of `later`, the index of the same message in `earlier` (-1 when it is new): the
 * n-th occurrence of a message there is the n-th occurrence here.
 */
export function sameMessages(earlier: readonly Message[], later: readonly Message[]): number[] {
  const seen = new Map<string, number[]>();
  earlier.forEach((m, i) => {
    const key = keyOf(m);
    seen.set(key, [...(seen.get(key) ?? []), i]);
  });
  const used = new Map<string, number>();
  return later.map((m) => {
    const key = keyOf(m);
    const n = used.get(key) ?? 0;
    used.set(key, n + 1);
    return seen.get(key)?.[n] ?? -1;
  });
}

/**
 * For each block upstream, the message the client sent it with: on every later request that still
 * has that message, wherever it sits, the block is in front of it, byte for byte.
 */
export function blocksThatLeftTheirMessage(
  xs: readonly Exchange[],
  open: string,
  read: Reader = messagesOf,
): string[] {
  const problems: string[] = [];
  xs.forEach((x, i) => {
    const sent = read(x.sent.body);
    read(upstreamBody(x)).forEach((m, j) => {
      const text = textOf(m);
      if (!text.includes(open)) return;
      const own = sent[j]!;
      const block = text.slice(0, text.length - textOf(own).length);
      for (let k = i + 1; k < xs.length; k++) {
        const at = sameMessages(sent, read(xs[k]!.sent.body)).indexOf(j);
        if (at === -1) continue;
        const there = textOf(read(upstreamBody(xs[k]!))[at]);
        if (!there.startsWith(block))
          problems.push(
            `the block of ${cardsIn(block).join(", ")} on message ${j} at #${i + 1} is not on it (now ${at}) at #${k + 1}`,
          );
      }
    });
  });
  return problems;
}

/**
 * Between consecutive requests, every message the client sent again (wherever it now sits) reaches
 * the upstream exactly as it did before: its blocks, and every byte of it.
 */
export function keptMessagesChanged(xs: readonly Exchange[], read: Reader = messagesOf): string[] {
  const problems: string[] = [];
  for (let i = 0; i + 1 < xs.length; i++) {
    const [a, b] = [xs[i]!, xs[i + 1]!];
    const upA = read(upstreamBody(a));
    const upB = read(upstreamBody(b));
    sameMessages(read(a.sent.body), read(b.sent.body)).forEach((was, at) => {
      if (was === -1 || Bun.deepEquals(upA[was], upB[at], true)) return;
      const short = (m: Message | undefined) => textOf(m).slice(0, 160);
      problems.push(
        `#${i + 1}→#${i + 2}: message ${was} (now ${at}) was ${short(upA[was])}, then ${short(upB[at])}`,
      );
    });
  }
  return problems;
}
