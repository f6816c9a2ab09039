// The context door's conversations in the page (why each card of a try is in: _why.ts): the recent
// conversations of the gateway and the hook (`GET /api/conversations`), each known by its name (the
// person's, `PUT /api/conversations/{id}`), its client, model, time and the cards that went in (no
// message is kept, so none is shown), each opening to its turns with the text we added, its marker lines
// folded away, the lore switch when it was not `auto`, a card's earlier state by its version, and what
// was left out and why.
import type { Conversations, ConversationTurns } from "../api/types.ts";
import { api } from "./_client.ts";
import { el, formatTime } from "./_dom.ts";
import { toast } from "./_toast.ts";
import { clientWords, LORE_WORDS, plural, REASON_WORDS, TIER_WORDS } from "./_words.ts";

type Summary = Conversations["conversations"][number];
type Turn = ConversationTurns["turns"][number];
type Block = Turn["blocks"][number];

/** "Sep 13, 10:01 – 10:42" (one date when both ends share it). */
function span(from: string | null, to: string): string {
  const end = formatTime(to);
  if (!from || from === to) return end;
  const start = formatTime(from);
  const sameDay = new Date(from).toDateString() === new Date(to).toDateString();
  return `${start} – ${sameDay ? new Date(to).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }) : end}`;
}

function title(c: Summary): string {
  return c.name ?? `${clientWords(c.surface, c.api)}${c.model ? ` · ${c.model}` : ""}`;
}

function summaryRow(body: HTMLElement, c: Summary): HTMLElement {
  const cards = c.cards.map((id) => id.split("/").slice(1).join("/")).join(", ");
  const more = c.card_count > c.cards.length ? ` and ${c.card_count - c.cards.length} more` : "";
  return el(
    "li",
    { class: "conversation" },
    el(
      "button",
      { type: "button", class: "link", title: `conversation ${c.id}`, onclick: () => open(body, c) },
      title(c),
    ),
    el(
      "span",
      { class: "muted" },
      [
        c.name ? clientWords(c.surface, c.api) : null,
        c.name && c.model ? c.model : null,
        plural(c.turns, "turn"),
        span(c.first_seen, c.last_seen),
        // Which books it read, once the vault has more than its own cards (docs/BOOKS.md).
        c.books.some((b) => b !== "main") ? `books: ${c.books.join(", ")}` : null,
      ]
        .filter(Boolean)
        .join(" · "),
    ),
    c.card_count > 0
      ? el("span", { class: "conv-cards" }, `Cards: ${cards}${more}`)
      : el("span", { class: "muted" }, "No card went in"),
  );
}

function open(body: HTMLElement, c: Summary): void {
  showConversation(body, c).catch((err) => showError(body, err));
}

/** The recent conversations panel: a list, each opening to its turns. */
export async function loadConversations(body: HTMLElement): Promise<void> {
  const { conversations } = await api<Conversations>("GET", "/api/conversations");
  if (conversations.length === 0) {
    body.replaceChildren(
      el("p", { class: "muted" }, "No conversation yet: the gateway and the hook record theirs here."),
    );
    return;
  }
  body.replaceChildren(
    el("ul", { class: "conversation-list" }, ...conversations.map((c) => summaryRow(body, c))),
  );
}

function showError(body: HTMLElement, err: unknown): void {
  const detail = (err as { detail?: string }).detail ?? String(err);
  body.replaceChildren(el("p", { class: "broken-note", role: "alert" }, detail));
}

/** The name field over a conversation's turns: saved on Enter or with the button. */
function nameForm(c: Summary): HTMLElement {
  const input = el("input", {
    type: "text",
    value: c.name ?? "",
    placeholder: title(c),
    "aria-label": "Name of this conversation",
    maxlength: 200,
  });
  const form = el(
    "form",
    { class: "conv-name" },
    input,
    el("button", { type: "submit", class: "small" }, "Name it"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await api<{ name: string | null }>("PUT", `/api/conversations/${encodeURIComponent(c.id)}`, {
        name: input.value,
      });
      c.name = r.name;
      toast(r.name ? `Named “${r.name}”.` : "The conversation's name was taken away.");
    } catch (err) {
      toast((err as { detail?: string }).detail ?? String(err), { error: true });
    }
  });
  return form;
}

/** One conversation: its turns, oldest first, each block's text with where it went. */
async function showConversation(body: HTMLElement, c: Summary): Promise<void> {
  const { turns } = await api<ConversationTurns>("GET", `/api/conversations/${encodeURIComponent(c.id)}`);
  const back = el(
    "button",
    {
      type: "button",
      class: "small",
      onclick: () => void loadConversations(body).catch((err) => showError(body, err)),
    },
    "All conversations",
  );
  body.replaceChildren(
    el(
      "div",
      { class: "conversation-head" },
      back,
      el("span", { class: "muted" }, `${clientWords(c.surface, c.api)}${c.model ? ` · ${c.model}` : ""}`),
    ),
    nameForm(c),
    el("ol", { class: "turns" }, ...turns.map(turnItem)),
  );
  back.focus();
}

/** A turn that added nothing says why: nothing fired, or what fired was in the conversation already. */
function nothingAdded(t: Turn): HTMLElement {
  const replayed = t.left_out.filter((l) => l.reason === "in_context");
  if (replayed.length > 0 || t.replayed_chars > 0) {
    const which = replayed.length ? `: ${replayed.map((l) => l.id).join(", ")}` : "";
    return el(
      "p",
      { class: "muted" },
      `Nothing new: the cards were already in the conversation, sent again from earlier turns${which}.`,
    );
  }
  return el("p", { class: "muted" }, "Nothing added: no card came up on this turn.");
}

function turnItem(t: Turn): HTMLElement {
  const leftOut = t.left_out.filter((l) => l.reason !== "in_context");
  return el(
    "li",
    { class: "turn", "data-turn": t.turn },
    el(
      "h4",
      {},
      `Turn ${t.turn}`,
      " ",
      el("time", { datetime: t.at }, formatTime(t.at)),
      " ",
      el("span", { class: "muted" }, t.model ?? ""),
    ),
    t.lore ? el("p", { class: "turn-lore" }, `Lore switch ${LORE_WORDS[t.lore] ?? t.lore}.`) : null,
    t.blocks.length > 0 ? t.blocks.map(blockItem) : nothingAdded(t),
    leftOut.length > 0
      ? el(
          "p",
          { class: "left-out" },
          "Left out: ",
          leftOut.map((l) => `${l.id} (${REASON_WORDS[l.reason] ?? l.reason})`).join(", "),
        )
      : null,
  );
}

/** Our marker lines (`<!-- lorecards:… -->`) frame a block for the gateway; a person reads what is inside. */
const MARKER = /^<!-- \/?lorecards:[0-9a-f]+ -->\n?/gm;

/** A card of a block; an earlier state placed beside a card is kept as `kind/key@version`. */
function cardWords(id: string): string {
  const earlier = /^(.+)@(\d+)$/.exec(id);
  return earlier ? `${earlier[1]} as of version ${earlier[2]}` : id;
}

function blockItem(b: Block): HTMLElement {
  const edited = new Set(b.edited ?? []);
  const tier = TIER_WORDS[b.tier];
  const text = b.text.replace(MARKER, "").trim();
  return el(
    "div",
    { class: `sent-block ${b.tier}` },
    el(
      "div",
      { class: "sent-head" },
      el("span", { class: `tag tier-${b.tier}`, title: tier?.hint }, tier?.label ?? b.tier),
      el("span", { class: "muted" }, b.where),
      ...b.cards.map((id) =>
        el(
          "span",
          { class: edited.has(id) ? "card-id edited" : "card-id" },
          edited.has(id) ? `${id} (edited, sent again)` : cardWords(id),
        ),
      ),
    ),
    el("pre", { class: "sent-text" }, text),
    text !== b.text.trim()
      ? el("p", { class: "hint" }, "Framed by lorecards' markers, which the gateway finds it by (not shown).")
      : null,
  );
}
