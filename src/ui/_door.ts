// The context door in the page: under the try box, why each card is (or is not) in front of the model,
// one line per card (`POST /api/explain`); and the recent conversations of the gateway and the hook
// (`GET /api/conversations`), each opening to its turns in order with the exact text of every block
// we added, its tier (stable, volatile, placed), the cards re-sent because they were edited, and what
// was left out. Plain DOM; everything comes from the API.
import { api } from "./_client.ts";
import { el, formatTime } from "./_dom.ts";

interface ExplainedCard {
  key: string;
  kind: string;
  title: string;
  verdict: string;
  asked: boolean;
  tier: string;
  line: string;
}

interface Explanation {
  cards: ExplainedCard[];
}

interface ConversationSummary {
  id: string;
  surface: string;
  turns: number;
  /** ISO 8601. */
  last_seen: string;
}

interface SentBlock {
  tier: "stable" | "volatile" | "placed";
  where: string;
  text: string;
  cards: string[];
  edited?: string[];
}

interface TurnRecord {
  turn: number;
  /** ISO 8601. */
  at: string;
  surface: string;
  api?: string;
  model?: string;
  blocks: SentBlock[];
  left_out: { id: string; reason: string }[];
}

/** The verdicts in words, as the line begins with them too. */
const STATE: Record<string, string> = {
  chosen: "in",
  in_context: "in context",
  left_out: "left out",
};

/** Why each card of a try is or is not in: one line per card, under the try box. */
export async function explainTry(box: HTMLElement, text: string): Promise<void> {
  const answer = await api<Explanation>("POST", "/api/explain", { text });
  if (answer.cards.length === 0) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  const rows = answer.cards.map((c) =>
    el(
      "li",
      { class: `why-line ${c.verdict}`, "data-key": c.key },
      el("span", { class: "tag" }, STATE[c.verdict] ?? "not fired"),
      el("span", {}, c.line),
    ),
  );
  box.replaceChildren(
    el(
      "details",
      { class: "why", open: true },
      el("summary", {}, "Why"),
      el("ol", { class: "why-list" }, rows),
    ),
  );
  box.hidden = false;
}

/** The recent conversations panel: a list, each opening to its turns. */
export async function loadConversations(body: HTMLElement): Promise<void> {
  const { conversations } = await api<{ conversations: ConversationSummary[] }>("GET", "/api/conversations");
  if (conversations.length === 0) {
    body.replaceChildren(
      el("p", { class: "muted" }, "No conversation yet: the gateway and the hook record theirs here."),
    );
    return;
  }
  const open = (id: string) => void showConversation(body, id).catch((err) => showError(body, err));
  body.replaceChildren(
    el(
      "ul",
      { class: "conversation-list" },
      ...conversations.map((c) =>
        el(
          "li",
          {},
          el("button", { type: "button", class: "link", onclick: () => open(c.id) }, c.id),
          el("span", { class: "tag" }, c.surface),
          el("span", { class: "muted" }, `${c.turns} turn(s)`),
          el("time", { datetime: c.last_seen }, formatTime(c.last_seen)),
        ),
      ),
    ),
  );
}

function showError(body: HTMLElement, err: unknown): void {
  const detail = (err as { detail?: string }).detail ?? String(err);
  body.replaceChildren(el("p", { class: "broken-note", role: "alert" }, detail));
}

/** One conversation: its turns, oldest first, each block's exact text with its tier. */
async function showConversation(body: HTMLElement, id: string): Promise<void> {
  const { turns } = await api<{ turns: TurnRecord[] }>("GET", `/api/conversations/${encodeURIComponent(id)}`);
  const back = el(
    "button",
    { type: "button", onclick: () => void loadConversations(body).catch((err) => showError(body, err)) },
    "All conversations",
  );
  body.replaceChildren(
    el("div", { class: "conversation-head" }, back, el("strong", {}, id)),
    el("ol", { class: "turns" }, ...turns.map(turnItem)),
  );
  back.focus();
}

function turnItem(t: TurnRecord): HTMLElement {
  const when = t.at;
  const about = [t.surface, t.api, t.model].filter(Boolean).join(" · ");
  const blocks = t.blocks.map(blockItem);
  return el(
    "li",
    { class: "turn", "data-turn": t.turn },
    el(
      "h4",
      {},
      `Turn ${t.turn}`,
      " ",
      el("time", { datetime: when }, formatTime(when)),
      " ",
      el("span", { class: "muted" }, about),
    ),
    blocks.length > 0 ? blocks : el("p", { class: "muted" }, "Nothing added this turn."),
    t.left_out.length > 0
      ? el(
          "p",
          { class: "left-out" },
          "Left out: ",
          t.left_out.map((l) => `${l.id} (${l.reason})`).join(", "),
        )
      : null,
  );
}

function blockItem(b: SentBlock): HTMLElement {
  const edited = new Set(b.edited ?? []);
  return el(
    "div",
    { class: `sent-block ${b.tier}` },
    el(
      "div",
      { class: "sent-head" },
      el("span", { class: `tag tier-${b.tier}` }, b.tier),
      el("span", { class: "muted" }, b.where),
      ...b.cards.map((id) =>
        el(
          "span",
          { class: edited.has(id) ? "card-id edited" : "card-id" },
          edited.has(id) ? `${id} (edited)` : id,
        ),
      ),
    ),
    el("pre", { class: "sent-text" }, b.text),
  );
}
