// style/note.ts and style/_inbox.ts: a prompt the hook reads and leaves in the inbox is learned by the
// next use of style memory exactly as learning it at once would have learned it (the same habits,
// counts, conversations, times, examples and brief), on the recorded chat and the real clients' user
// messages; the inbox holds nothing of a message that the store itself would not keep; and a fold
// killed anywhere, or run by several processes at once, neither loses nor counts twice a prompt.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { noteStyle, openStyle, type StyleBook } from "../../src/style/index.ts";
import { ownWords } from "../../src/style-surface/index.ts";
import { emptyVaults } from "../support/empty-vaults.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { CHAT_FILE } from "../support/style-chat.ts";

/** The real clients' prompts join the chat's where shared/ is there (and under CI, which has it). */
const HAVE_REAL_CLIENTS = haveRealFixture("style inbox: the real clients' prompts", "clients");
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

const vault = emptyVaults();

const inboxOf = (root: string) => path.join(root, ".lorecards", "style-inbox.jsonl");

/** The user messages of the real clients' recorded requests, as the hook would hand them over. */
function realPrompts(): string[] {
  const out = new Set<string>();
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) for (const v of o) walk(v);
    else if (o !== null && typeof o === "object") {
      const r = o as Record<string, unknown>;
      if (r.role === "user") {
        if (typeof r.content === "string") out.add(r.content);
        else if (Array.isArray(r.content))
          for (const p of r.content) if (typeof p?.text === "string") out.add(p.text as string);
      }
      for (const v of Object.values(r)) walk(v);
    }
  };
  for (const dir of ["clients", "clients-sillytavern"]) {
    const base = path.join(REAL_FIXTURES, dir);
    if (!fs.existsSync(base)) continue;
    for (const sub of fs.readdirSync(base)) {
      const folder = path.join(base, sub);
      if (!fs.statSync(folder).isDirectory()) continue;
      for (const f of fs.readdirSync(folder).filter((n) => n.endsWith(".json")))
        walk(JSON.parse(fs.readFileSync(path.join(folder, f), "utf8")));
    }
  }
  return [...out];
}

interface Chat {
  secrets: string[];
  conversations: { id: string; messages: string[] }[];
}
const chat = JSON.parse(fs.readFileSync(CHAT_FILE, "utf8")) as Chat;

/** Prompts in conversations: the chat's, the real clients' (when the folder is there), and edge cases. */
function prompts(): { conversation: string; text: string }[] {
  const out = chat.conversations.flatMap((c) => c.messages.map((text) => ({ conversation: c.id, text })));
  const real = HAVE_REAL_CLIENTS ? realPrompts() : [];
  real.forEach((text, i) => {
    out.push({ conversation: `real-${i % 3}`, text });
  });
  const edges = [
    "23333333 lol, hahaha:D no cap",
    "password: hunter2 lol ngl",
    "```\nlol in code\n``` but ngl this is out of it",
    `${"very long message ngl ".repeat(60)}lol`,
    "今天真的绝绝子，yyds！😭😭",
    "   ",
  ];
  edges.forEach((text, i) => {
    out.push({ conversation: `edge-${i % 2}`, text });
  });
  return out;
}

/** Everything a reader sees: each habit in full, and the brief. */
async function seen(book: StyleBook): Promise<unknown> {
  return { habits: await book.list(), brief: (await book.brief()).text };
}

/**
 * The same prompts, one vault learning each at once (the book's observe, as the hook did) and one
 * through the inbox; a reader looks at both every `readEvery` prompts, and the clock moves on each.
 */
async function bothWays(settings: string | undefined, readEvery: number, step: number): Promise<void> {
  const atOnce = vault(settings);
  const later = vault(settings);
  let now = START;
  const options = { now: () => now, warn: () => {} };
  const list = prompts().map((p) => ({ ...p, text: ownWords(p.text) }));
  // The chat's 14 prompts and 6 edge cases, and the real clients' many more where they are there.
  expect(list.length).toBeGreaterThan(HAVE_REAL_CLIENTS ? 20 : 19);
  for (const [i, p] of list.entries()) {
    const book = await openStyle(atOnce, options);
    await book.observe(p.conversation, p.text);
    await book.close();
    await noteStyle(later, options, p.conversation, p.text);
    now += step;
    if ((i + 1) % readEvery === 0) {
      const [a, b] = [await openStyle(atOnce, options), await openStyle(later, options)];
      expect(await seen(b)).toEqual(await seen(a));
      await Promise.all([a.close(), b.close()]);
    }
  }
  const [a, b] = [await openStyle(atOnce, options), await openStyle(later, options)];
  expect(await seen(b)).toEqual(await seen(a));
  expect((await a.list()).length).toBeGreaterThan(10);
  await Promise.all([a.close(), b.close()]);
}

describe("learning through the inbox", () => {
  test("equals learning each prompt at once, read after every prompt", async () => {
    await bothWays(undefined, 1, 60_000);
  });

  test("equals learning at once when read rarely, with days between prompts (habits expire on the way)", async () => {
    await bothWays(undefined, 17, 7 * DAY);
  });

  test("equals learning at once under the vault's own rules (a shorter example, a higher gate, a short life)", async () => {
    await bothWays("style:\n  example_length: 24\n  promote_count: 3\n  candidate_ttl_days: 3\n", 5, DAY);
  });

  test("a paused store learns nothing from what waited in the inbox, as it would have at once", async () => {
    const root = vault();
    await noteStyle(root, {}, "c1", "no cap lol");
    await noteStyle(root, {}, "c1", "no cap lol");
    expect(fs.existsSync(inboxOf(root))).toBe(true);
    const book = await openStyle(root);
    await book.pause(); // folds first: the prompts before the pause are learned
    await noteStyle(root, {}, "c1", "ngl no cap");
    expect((await book.list()).find((h) => h.signal === "no cap")?.count).toBe(2);
    await book.close();
  });

  test("while the store holds hinted phrases, the hook learns at once and finds the person's use of them", async () => {
    const root = vault();
    const inboxLines = () =>
      fs.existsSync(inboxOf(root))
        ? fs.readFileSync(inboxOf(root), "utf8").split("\n").filter(Boolean).length
        : 0;
    await noteStyle(root, {}, "c1", "no cap"); // the first prompt: learned at once, and the store has no hint
    await noteStyle(root, {}, "c1", "no cap");
    expect(inboxLines()).toBe(1);
    const book = await openStyle(root);
    expect(await book.hint("agent", { signal: "tiny but mighty" })).toMatchObject({ status: "recorded" });
    await book.close();
    await noteStyle(root, {}, "c2", "this laptop is tiny but mighty");
    expect(inboxLines()).toBe(1);
    const again = await openStyle(root);
    expect((await again.list()).find((h) => h.signal === "tiny but mighty")?.count).toBe(2);
    await again.forget("tiny but mighty");
    await again.close();
    await noteStyle(root, {}, "c2", "no cap"); // the hint is gone: learned at once, which says so
    await noteStyle(root, {}, "c2", "no cap");
    expect(inboxLines()).toBe(2);
    const last = await openStyle(root);
    expect((await last.list()).find((h) => h.signal === "no cap")?.count).toBe(4);
    await last.close();
  });
});

describe("what the inbox holds", () => {
  test("no secret and no 61 characters in a row of any prompt: only what the store keeps", async () => {
    const root = vault();
    const list = prompts();
    for (const p of list) await noteStyle(root, {}, p.conversation, ownWords(p.text));
    const held = fs.readFileSync(inboxOf(root), "utf8");
    for (const secret of chat.secrets) expect(held).not.toContain(secret);
    expect(held).not.toContain("hunter2");
    const normal = (t: string) => t.normalize("NFKC").replace(/\s+/g, " ");
    for (const p of list) {
      const text = normal(ownWords(p.text));
      for (let i = 0; i + 61 <= text.length; i += 7) expect(held).not.toContain(text.slice(i, i + 61));
    }
  });
});

describe("folding", () => {
  test("a line cut short by a crash is dropped with a warning; the lines after it are learned", async () => {
    const root = vault();
    await noteStyle(root, {}, "c1", "no cap lol");
    await noteStyle(root, {}, "c1", "no cap lol");
    fs.appendFileSync(inboxOf(root), '\n{"at":1,"rules":{},"conv":"x","sigh');
    await noteStyle(root, {}, "c2", "no cap lol");
    const warnings: string[] = [];
    const book = await openStyle(root, { warn: (l) => warnings.push(l) });
    expect((await book.list()).find((h) => h.signal === "no cap")?.count).toBe(3);
    expect(warnings.join("\n")).toContain("1 unreadable line");
    await book.close();
  });

  test("a large inbox is set aside once folded, and removed once untouched for ten minutes", async () => {
    const root = vault();
    const text = `no cap lol ${"ngl ".repeat(20)}`;
    const aside = inboxOf(root).replace(".jsonl", ".old.jsonl");
    const count = async () => {
      const book = await openStyle(root);
      const n = (await book.list()).find((h) => h.signal === "no cap")?.count;
      await book.close();
      return n;
    };
    // The hook folds the inbox itself every 64 KB it grows: the one that finds it over 256 KB sets it aside.
    let n = 0;
    for (; !fs.existsSync(aside); n++) await noteStyle(root, {}, `c${n % 5}`, text);
    expect(fs.statSync(aside).size).toBeGreaterThan(256 * 1024);
    expect(await count()).toBe(n);
    // A hook that opened the inbox just before it was set aside writes there: still learned.
    const line = fs
      .readFileSync(aside, "utf8")
      .split("\n")
      .find((l) => l.startsWith("{"))!;
    fs.appendFileSync(aside, `\n${line}\n`);
    await noteStyle(root, {}, "c1", text);
    expect(await count()).toBe(n + 2);
    expect(fs.existsSync(aside)).toBe(true);
    const past = new Date(Date.now() - 11 * 60_000);
    fs.utimesSync(aside, past, past);
    await noteStyle(root, {}, "c1", text);
    expect(await count()).toBe(n + 3);
    expect(fs.existsSync(aside)).toBe(false);
    expect(await count()).toBe(n + 3);
  });
});
