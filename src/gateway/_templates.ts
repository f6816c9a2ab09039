/**
 * Where the turns are in a text-completion prompt, which is one string: only where that is certain.
 * Either the prompt follows a chat template whose turn markers are special tokens no one types
 * (ChatML, Llama 3, Gemma, Mistral's `[INST]`), or the client marks the place for cards itself with
 * `<lorecards/>` (in SillyTavern's story string or Author's Note, say). A prompt with neither is
 * plain prose ("User: … Seraphina:"): where a person's words start there is a guess, and the gateway
 * does not guess (completions.ts passes it through, with one notice).
 */

/** One turn of the prompt: its role, and where its header, its text and its end are. */
export interface Segment {
  role: "system" | "user" | "assistant";
  /** Where the turn's header starts (a message inserted before it goes here). */
  start: number;
  /** Where its text starts and ends (a prefix goes at `textStart`). */
  textStart: number;
  textEnd: number;
  /** Where the turn ends, its closing token included (a message inserted after it goes here). */
  end: number;
}

export interface Template {
  name: string;
  /** The turns, in order; the last may be open (the assistant's turn the model is to write). */
  segments(prompt: string): Segment[];
  /** A whole turn of `role` with `text`, as the template writes it. */
  turn(role: Segment["role"], text: string): string;
}

/** The marker a client puts where cards go. */
export const PLACE_MARKER = "<lorecards/>";

/** A template whose turns open with `open(role)` and close with `close`, roles named in the header. */
function headed(
  name: string,
  open: (role: string) => string,
  header: RegExp,
  close: string,
  roles: Record<string, Segment["role"]>,
): Template {
  return {
    name,
    segments(prompt) {
      const out: Segment[] = [];
      const re = new RegExp(header.source, "g");
      for (let m = re.exec(prompt); m !== null; m = re.exec(prompt)) {
        const role = roles[m[1]!];
        const textStart = m.index + m[0].length;
        const closeAt = prompt.indexOf(close, textStart);
        const textEnd = closeAt === -1 ? prompt.length : closeAt;
        const end = closeAt === -1 ? prompt.length : closeAt + close.length;
        if (role) out.push({ role, start: m.index, textStart, textEnd, end });
        re.lastIndex = textEnd;
      }
      return out;
    },
    turn: (role, text) => `${open(Object.keys(roles).find((k) => roles[k] === role) ?? role)}${text}${close}`,
  };
}

const CHAT_ROLES = { system: "system", user: "user", assistant: "assistant" } as const;

export const TEMPLATES: readonly Template[] = [
  headed(
    "ChatML",
    (r) => `<|im_start|>${r}\n`,
    /<\|im_start\|>(system|user|assistant)\n/,
    "<|im_end|>",
    CHAT_ROLES,
  ),
  headed(
    "Llama 3",
    (r) => `<|start_header_id|>${r}<|end_header_id|>\n\n`,
    /<\|start_header_id\|>(system|user|assistant)<\|end_header_id\|>\n\n/,
    "<|eot_id|>",
    CHAT_ROLES,
  ),
  headed("Gemma", (r) => `<start_of_turn>${r}\n`, /<start_of_turn>(user|model)\n/, "<end_of_turn>", {
    user: "user",
    model: "assistant",
  }),
  {
    name: "Mistral",
    segments: mistralSegments,
    turn: (role, text) => (role === "assistant" ? `${text}</s>` : `[INST] ${text} [/INST]`),
  },
];

/** `[INST] user [/INST] assistant</s>[INST] …`: the user's words inside, the model's after. */
function mistralSegments(prompt: string): Segment[] {
  const out: Segment[] = [];
  let from = prompt.indexOf("[INST]");
  while (from !== -1) {
    const close = prompt.indexOf("[/INST]", from);
    if (close === -1) break;
    const textStart = from + "[INST]".length + (prompt[from + 6] === " " ? 1 : 0);
    const textEnd = prompt[close - 1] === " " && close - 1 >= textStart ? close - 1 : close;
    out.push({ role: "user", start: from, textStart, textEnd, end: close + "[/INST]".length });
    const next = prompt.indexOf("[INST]", close);
    const answerEnd = next === -1 ? prompt.length : next;
    const eos = prompt.lastIndexOf("</s>", answerEnd);
    const after = close + "[/INST]".length;
    const stop = eos >= after ? eos : answerEnd;
    if (stop > after || next === -1)
      out.push({ role: "assistant", start: after, textStart: after, textEnd: stop, end: answerEnd });
    from = next;
  }
  return out;
}

/** The template a prompt follows: the first whose turns include one of the person's. */
export function templateOf(prompt: string): { template: Template; segments: Segment[] } | null {
  for (const template of TEMPLATES) {
    const segments = template.segments(prompt);
    if (segments.some((s) => s.role === "user")) return { template, segments };
  }
  return null;
}
