// The "Style memory" panel (README "Style memory"): what was learned of how the person talks, grouped
// by state, with the controls the CLI and the MCP tools have (pin, unpin, forget, pause, resume), its
// health score (_style-score.ts) and the brief a model would get. Everything comes from /api/style; the page keeps nothing of it.
import type { StyleBrief, StyleHabits, StyleScore } from "../api/types.ts";
import { api } from "./_client.ts";
import { el } from "./_dom.ts";
import { scoreBlock } from "./_style-score.ts";

type Habit = StyleHabits["habits"][number];

/** What a measured trait of the messages (kind `voice`) means, in words. */
const VOICE: Record<string, string> = {
  chinese: "writes mostly in Chinese",
  english: "writes mostly in English",
  mixed: "mixes Chinese and English in one message",
  short: "keeps messages short",
  medium: "writes messages of ordinary length",
  long: "writes long, detailed messages",
  lowercase: "types in lowercase, without capitals",
  capitals: "capitalises as usual",
};

/** The kinds of habit, as a person would name them. */
const KINDS: Record<string, string> = {
  slang: "slang",
  abbreviation: "abbreviation",
  catchphrase: "saying",
  laughter: "laughter",
  address: "how they address people",
  dialect: "dialect",
  idiolect: "their own phrase",
  emoji: "emoji",
  emoticon: "emoticon",
  punctuation: "punctuation",
  voice: "how they write",
  preference: "how they like replies",
};

/** A habit as a person reads it: what they say, and what it means when the dictionary knows. */
function meaning(h: Habit): string | null {
  if (h.kind === "voice") return VOICE[h.signal] ?? null;
  return h.note ?? null;
}

const GROUPS: [Habit["state"], string][] = [
  ["active", "Active: in the brief"],
  ["candidate", "Candidates: seen, not yet in two conversations"],
  ["archived", "Archived: unseen for half a year"],
];

type Say = (message: string, error?: boolean) => void;

export async function loadStyle(body: HTMLElement, say: Say): Promise<void> {
  const [{ learning, habits }, score] = await Promise.all([
    api<StyleHabits>("GET", "/api/style"),
    // The score is read beside the habits; a panel without it still lists them.
    api<StyleScore>("GET", "/api/style/score").catch(() => null),
  ]);
  const reload = () => loadStyle(body, say).catch((err) => say(errorText(err), true));
  const act = async (method: string, path: string, done: string) => {
    try {
      await api(method, path, method === "DELETE" ? undefined : {});
      say(done);
      await reload();
    } catch (err) {
      say(errorText(err), true);
    }
  };
  const toggle = el(
    "button",
    {
      type: "button",
      class: "small",
      onclick: () =>
        void act(
          "POST",
          learning ? "/api/style/pause" : "/api/style/resume",
          learning ? "Learning paused." : "Learning resumed.",
        ),
    },
    learning ? "Pause learning" : "Resume learning",
  );
  const status = el(
    "p",
    { class: "style-status" },
    el("span", {}, learning ? "Learning from the person's own messages." : "Learning is paused."),
    toggle,
  );
  const groups = GROUPS.map(([state, title]) => {
    const of = habits.filter((h) => h.state === state);
    if (of.length === 0) return null;
    return el(
      "section",
      { class: "style-group", "aria-label": title },
      el("h3", {}, title),
      el("ul", { class: "style-list" }, ...of.map((h) => habitRow(h, act))),
    );
  });
  const empty =
    habits.length === 0
      ? el(
          "p",
          { class: "muted" },
          "Nothing learned yet: the gateway and the hook learn from each new message.",
        )
      : null;
  const briefBox = el("pre", { class: "style-brief", hidden: true });
  const showBrief = el(
    "button",
    {
      type: "button",
      class: "small",
      onclick: async () => {
        try {
          const brief = await api<StyleBrief>("GET", "/api/style/brief");
          briefBox.textContent = "text" in brief ? brief.text : ""; // it names its revision
          briefBox.hidden = false;
        } catch (err) {
          say(errorText(err), true);
        }
      },
    },
    "Show the brief",
  );
  body.replaceChildren(
    ...[
      status,
      score && scoreBlock(score),
      empty,
      ...groups,
      el("div", { class: "actions" }, showBrief),
      briefBox,
    ].filter((n): n is HTMLElement => n !== null),
  );
}

type Act = (method: string, path: string, done: string) => Promise<void>;

function habitRow(h: Habit, act: Act): HTMLElement {
  const path = `/api/style/habits/${encodeURIComponent(h.id)}`;
  const seen = `${h.count}× in ${h.conversations} conversation${h.conversations === 1 ? "" : "s"}`;
  return el(
    "li",
    { class: h.pinned ? "style-habit pinned" : "style-habit", "data-id": h.id },
    el("span", { class: "signal" }, h.kind === "voice" ? (VOICE[h.signal] ?? h.signal) : h.signal),
    el("span", { class: "tag", title: `kind: ${h.kind}` }, KINDS[h.kind] ?? h.kind),
    h.kind !== "voice" && meaning(h) ? el("span", { class: "meaning" }, `“${meaning(h)}”`) : null,
    el("span", { class: "seen", title: `last seen ${new Date(h.last_seen).toLocaleString()}` }, seen),
    h.example ? el("q", { class: "example" }, h.example) : null,
    el(
      "span",
      { class: "style-actions" },
      el(
        "button",
        {
          type: "button",
          class: "small",
          "aria-label": `${h.pinned ? "Unpin" : "Pin"} ${h.signal}`,
          onclick: () =>
            void act(
              "POST",
              `${path}/${h.pinned ? "unpin" : "pin"}`,
              `${h.pinned ? "Unpinned" : "Pinned"} “${h.signal}”.`,
            ),
        },
        h.pinned ? "Unpin" : "Pin",
      ),
      el(
        "button",
        {
          type: "button",
          class: "small danger",
          "aria-label": `Forget ${h.signal}`,
          onclick: () => {
            if (confirm(`Forget “${h.signal}”? Nothing of it is kept.`))
              void act("DELETE", path, `Forgot “${h.signal}”.`);
          },
        },
        "Forget",
      ),
    ),
  );
}

function errorText(err: unknown): string {
  const e = err as { detail?: string; message?: string };
  return e.detail ?? e.message ?? String(err);
}
