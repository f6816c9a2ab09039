// The style book over its store: the gate, hints, time on a fake clock, pins, pause, forget, revisions.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { LoreError } from "../../src/errors.ts";
import { excerpt } from "../../src/sanitize.ts";
import { openStyle, type StyleBook, stylePath } from "../../src/style/index.ts";
import { DAY, RULES } from "../../src/style/rules.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const T0 = Date.parse("2025-06-01T12:00:00Z");
const dirs: string[] = [];
const books: StyleBook[] = [];

afterEach(async () => {
  for (const b of books.splice(0)) await b.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

interface Opened {
  root: string;
  book: StyleBook;
  clock: { t: number };
  warnings: string[];
  reopen: () => Promise<StyleBook>;
}

async function vault(root = tempDir()): Promise<Opened> {
  dirs.push(root);
  const clock = { t: T0 };
  const warnings: string[] = [];
  const reopen = async () => {
    const book = await openStyle(root, { now: () => clock.t, warn: (l) => warnings.push(l) });
    books.push(book);
    return book;
  };
  return { root, book: await reopen(), clock, warnings, reopen };
}

async function habit(book: StyleBook, signal: string) {
  return (await book.list()).find((h) => h.signal === signal);
}

describe("the store", () => {
  test("nothing is written until something is learned", async () => {
    const { root, book } = await vault();
    expect(await book.list()).toEqual([]);
    expect(await book.learning()).toBe(true);
    expect((await book.brief()).revision).toBe(0);
    await book.observe("c1", "   ");
    expect(fs.existsSync(path.join(root, ".lorecards"))).toBe(false);
    await book.observe("c1", "no cap");
    expect(fs.existsSync(stylePath(root))).toBe(true);
  });

  test("a vault that does not exist is an error naming it", async () => {
    const missing = path.join(tempDir(), "nope");
    dirs.push(path.dirname(missing));
    expect(openStyle(missing)).rejects.toThrow(`the vault ${missing} cannot be read`);
  });

  test("a damaged style.db is moved aside and rebuilt, with a warning", async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".lorecards"));
    fs.writeFileSync(stylePath(root), "this is not a database, not even close ".repeat(200));
    const { book, warnings } = await vault(root);
    await book.observe("c1", "no cap");
    expect((await book.list()).map((h) => h.signal)).toContain("no cap");
    expect(warnings.join("\n")).toMatch(
      /style store .* could not be read .* moved to .*corrupt-\d+, rebuilt empty/,
    );
    expect(fs.readdirSync(path.join(root, ".lorecards")).some((f) => f.startsWith("style.db.corrupt-"))).toBe(
      true,
    );
  });

  test("two books on one vault (a gateway and a hook) share what they learn", async () => {
    const { book, reopen } = await vault();
    const other = await reopen();
    await book.observe("c1", "no cap");
    await other.observe("c2", "no cap");
    await book.observe("c3", "no cap");
    expect(await habit(other, "no cap")).toMatchObject({ state: "active", count: 3, conversations: 3 });
  });

  test("beyond the cap the least recently seen candidates go first, never a pinned one", async () => {
    const { book, clock } = await vault();
    await book.hint("c0", { signal: "oldest phrase" });
    await book.pin("oldest phrase");
    for (let i = 0; i < RULES.habitCap + 5; i++) {
      clock.t = T0 + i * 1000;
      await book.hint("c1", { signal: `phrase ${i}` });
    }
    const signals = new Set((await book.list()).map((h) => h.signal));
    expect(signals.size).toBe(RULES.habitCap);
    expect(signals.has("oldest phrase")).toBe(true);
    expect(signals.has("phrase 0")).toBe(false);
    expect(signals.has(`phrase ${RULES.habitCap + 4}`)).toBe(true);
  });

  test("what was learned is there for the next process", async () => {
    const { book, reopen } = await vault();
    await book.observe("c1", "no cap");
    await book.pause();
    const again = await reopen();
    expect((await habit(again, "no cap"))?.count).toBe(1);
    expect(await again.learning()).toBe(false);
  });
});

describe("learning from the person's messages", () => {
  test("a habit is a candidate until seen twice in two conversations", async () => {
    const { book } = await vault();
    await book.observe("c1", "no cap, that works");
    await book.observe("c1", "no cap again");
    expect(await habit(book, "no cap")).toMatchObject({ state: "candidate", count: 2, conversations: 1 });
    await book.observe("c2", "NO CAP");
    expect(await habit(book, "no cap")).toMatchObject({ state: "active", count: 3, conversations: 2 });
  });

  test("a habit's example is its message's one excerpt, scrubbed, when the excerpt shows it", async () => {
    const { book } = await vault();
    const message = `no cap this is it, my key is sk-Zx9Qw8Er7Ty6Ui5Op4As and ${"filler words here ".repeat(10)}`;
    await book.observe("c1", message);
    const example = (await habit(book, "no cap"))!.example!;
    expect(example).toBe(excerpt(message)!);
    expect(example.length).toBeLessThanOrEqual(60);
    expect(example).toContain("no cap this is it");
    expect(example).not.toContain("sk-");
  });

  test("habits seen in one message share its one excerpt: no second window of it is kept", async () => {
    const { root, book } = await vault();
    const words = "plain words about the build ".repeat(3);
    const message = `ngl ${words}lol ${words}tbh ${words}lowkey ${words}no cap ${words}`;
    await book.observe("c1", message);
    const habits = await book.list();
    expect(habits.map((h) => h.signal)).toEqual(
      expect.arrayContaining(["ngl", "lol", "tbh", "lowkey", "no cap"]),
    );
    expect(new Set(habits.flatMap((h) => (h.example === undefined ? [] : [h.example])))).toEqual(
      new Set([excerpt(message)!]),
    );
    await book.close();
    const bytes = fs.readFileSync(stylePath(root)).toString("utf8");
    for (const later of ["lol plain", "tbh plain", "lowkey plain", "no cap plain"])
      expect(bytes).not.toContain(later);
  });

  test("nothing of a message is stored beyond the examples (the file, read as bytes)", async () => {
    const { root, book } = await vault();
    const messages = [
      "honestly the deploy broke again and I am tired of it, lol, call me at 415 555 0199 😭",
      "我觉得这个方案巴适得很，就是部署的时候要注意密码是hunter2abc这种东西别提交上去哈哈哈",
      "ok so the plan is: ship it tomorrow, ping ann.lee@example.com, and no cap it will work ✨",
    ];
    for (const [i, m] of messages.entries()) await book.observe(`c${i}`, m);
    await book.close();
    const dir = path.join(root, ".lorecards");
    const bytes = fs
      .readdirSync(dir)
      .map((f) => fs.readFileSync(path.join(dir, f)).toString("utf8"))
      .join("\n");
    for (const m of messages) {
      for (let i = 0; i + 61 <= m.length; i++) expect(bytes).not.toContain(m.slice(i, i + 61));
    }
    for (const secret of ["0199", "hunter2abc", "ann.lee@example.com"]) expect(bytes).not.toContain(secret);
  });

  test("while paused nothing is observed or hinted; resumed, learning goes on", async () => {
    const { book } = await vault();
    await book.pause();
    expect(await book.learning()).toBe(false);
    await book.observe("c1", "no cap");
    expect(await book.hint("c1", { signal: "tiny but mighty" })).toEqual({ status: "paused" });
    expect(await book.profileHint("c1", "conclusions before details")).toEqual({ status: "paused" });
    expect(await book.list()).toEqual([]);
    await book.resume();
    await book.observe("c1", "no cap");
    expect((await book.list()).map((h) => h.signal)).toContain("no cap");
  });
});

describe("agents' hints", () => {
  test("a hint weighs like one sighting and never skips the gate", async () => {
    const { book } = await vault();
    const first = await book.hint("c1", { signal: "tiny but mighty", example: "tiny but mighty ✨ ship it" });
    expect(first).toMatchObject({
      status: "recorded",
      habit: { kind: "idiolect", state: "candidate", count: 1 },
    });
    await book.hint("c1", { signal: "Tiny  but mighty" });
    expect(await habit(book, "tiny but mighty")).toMatchObject({ state: "candidate", count: 2, hints: 2 });
    await book.hint("c2", { signal: "tiny but mighty" });
    expect(await habit(book, "tiny but mighty")).toMatchObject({ state: "active", conversations: 2 });
  });

  test("a hinted phrase is then noticed in the person's own messages", async () => {
    const { book } = await vault();
    await book.hint("c1", { signal: "tiny but mighty" });
    await book.observe("c2", "well, tiny but mighty as we say");
    expect(await habit(book, "tiny but mighty")).toMatchObject({ state: "active", count: 2, hints: 1 });
  });

  test("a hint the dictionary knows takes the dictionary's kind and gloss", async () => {
    const { book } = await vault();
    const got = await book.hint("c1", { signal: "No Cap", kind: "idiolect" });
    expect(got).toMatchObject({
      status: "recorded",
      habit: { kind: "slang", signal: "no cap", note: "for real, no lie" },
    });
    const emoji = await book.hint("c1", { signal: "😭" });
    expect(emoji).toMatchObject({ habit: { kind: "emoji", signal: "😭" } });
  });

  test.each([
    [{ signal: "" }, "a hint needs the signal"],
    [{ signal: "x".repeat(41) }, "at most 40 characters"],
    [{ signal: "my token sk-abcdef123456" }, "looks like a credential"],
    [{ signal: "call 13800138000" }, "looks like a credential, link, e-mail or phone number"],
    [{ signal: "vibes", kind: "voice" }, "kind must be one of"],
  ])("refused: %j", async (hint, reason) => {
    const { book } = await vault();
    const got = await book.hint("c1", hint as never);
    expect(got.status).toBe("refused");
    expect(got.status === "refused" ? got.reason : "").toContain(reason);
    expect(await book.list()).toEqual([]);
  });

  test("a preference passes the same gate, two wordings counting as one", async () => {
    const { book } = await vault();
    await book.profileHint("c1", "conclusions before details");
    await book.profileHint("c2", "The user prefers conclusions before details.");
    const prefs = (await book.list()).filter((h) => h.kind === "preference");
    expect(prefs).toHaveLength(1);
    expect(prefs[0]).toMatchObject({ signal: "conclusions before details", state: "active", count: 2 });
  });

  test("a label, diagnosis or private fact is refused with a reason", async () => {
    const { book } = await vault();
    for (const p of ["the user is anxious", "has ADHD", "lives in Berlin"]) {
      const got = await book.profileHint("c1", p);
      expect(got.status).toBe("refused");
    }
    expect(await book.list()).toEqual([]);
  });
});

describe("time, on the book's clock", () => {
  test("a candidate unseen for 30 days is deleted; reading the brief does not keep it", async () => {
    const { book, clock } = await vault();
    await book.observe("c1", "no cap");
    clock.t = T0 + 29 * DAY;
    await book.brief();
    await book.list();
    expect(await habit(book, "no cap")).toBeDefined();
    clock.t = T0 + 30 * DAY;
    expect(await habit(book, "no cap")).toBeUndefined();
  });

  test("an active habit is archived after 180 days unseen, deleted at 360", async () => {
    const { book, clock } = await vault();
    await book.observe("c1", "no cap");
    await book.observe("c2", "no cap");
    clock.t = T0 + 179 * DAY;
    expect((await habit(book, "no cap"))?.state).toBe("active");
    clock.t = T0 + 180 * DAY;
    expect((await habit(book, "no cap"))?.state).toBe("archived");
    expect((await book.list({ state: "archived" })).map((h) => h.signal)).toContain("no cap");
    clock.t = T0 + 360 * DAY;
    expect(await habit(book, "no cap")).toBeUndefined();
  });

  test("the person saying it again brings an archived habit back", async () => {
    const { book, clock } = await vault();
    await book.observe("c1", "no cap");
    await book.observe("c2", "no cap");
    clock.t = T0 + 200 * DAY;
    await book.observe("c3", "no cap");
    expect(await habit(book, "no cap")).toMatchObject({ state: "active", count: 3 });
  });

  test("a pinned habit never expires, a pinned candidate is active", async () => {
    const { book, clock } = await vault();
    await book.observe("c1", "no cap");
    const pinned = await book.pin("no cap");
    expect(pinned).toMatchObject({ state: "active", pinned: true });
    clock.t = T0 + 5000 * DAY;
    expect(await habit(book, "no cap")).toMatchObject({ state: "active", pinned: true });
    await book.unpin(pinned.id);
    expect(await habit(book, "no cap")).toBeUndefined();
  });

  test("an observation also ages the rest", async () => {
    const { book, clock } = await vault();
    await book.observe("c1", "no cap");
    clock.t = T0 + 31 * DAY;
    await book.observe("c2", "ngl");
    expect((await book.list()).map((h) => h.signal)).not.toContain("no cap");
  });
});

describe("pin, unpin, forget", () => {
  test("forget deletes for good; a later sighting starts afresh", async () => {
    const { book } = await vault();
    await book.observe("c1", "no cap");
    await book.observe("c2", "no cap");
    const h = (await habit(book, "no cap"))!;
    await book.forget(h.id);
    expect(await habit(book, "no cap")).toBeUndefined();
    await book.observe("c3", "no cap");
    expect(await habit(book, "no cap")).toMatchObject({ state: "candidate", count: 1 });
  });

  test("an unknown id is not_found; a signal two habits share must be named by id", async () => {
    const { book } = await vault();
    await expect(book.pin("nope")).rejects.toMatchObject({ code: "not_found" });
    await expect(book.forget("nope")).rejects.toBeInstanceOf(LoreError);
    await book.hint("c1", { signal: "zoinks", kind: "catchphrase" });
    await book.hint("c1", { signal: "zoinks", kind: "laughter" });
    await expect(book.pin("zoinks")).rejects.toMatchObject({ code: "invalid_input" });
  });
});

describe("the brief's revision", () => {
  test("stays while nothing in the brief changes, moves when something does", async () => {
    const { book, reopen } = await vault();
    await book.observe("c1", "no cap");
    await book.observe("c2", "no cap");
    const first = await book.brief();
    expect(first.kind).toBe("full");
    expect(first.revision).toBe(1);
    await book.observe("c3", "no cap"); // a third sighting: still light
    expect((await book.brief()).revision).toBe(1);
    expect((await (await reopen()).brief()).revision).toBe(1);
    await book.observe("c1", "ngl");
    await book.observe("c2", "ngl");
    expect((await book.brief()).revision).toBe(2);
  });

  test("full, delta or ack, by what the caller holds", async () => {
    const { book } = await vault();
    await book.observe("c1", "no cap 😭");
    await book.observe("c2", "no cap 😭");
    const r1 = await book.brief();
    expect(await book.brief({ since: r1.revision })).toMatchObject({ kind: "ack", revision: 1 });
    await book.observe("c1", "ngl");
    await book.observe("c2", "ngl");
    const delta = await book.brief({ since: 1 });
    expect(delta).toMatchObject({ kind: "delta", revision: 2, since: 1 });
    expect(delta.kind === "delta" ? delta.added.map((i) => i.label) : []).toEqual(['"ngl"']);
    expect((await book.brief({ since: 7 })).kind).toBe("full");
  });

  test("after a forget, an older revision gets the full brief", async () => {
    const { book } = await vault();
    await book.observe("c1", "no cap ngl");
    await book.observe("c2", "no cap ngl");
    await book.brief();
    await book.observe("c1", "😭");
    await book.observe("c2", "😭");
    expect((await book.brief()).revision).toBe(2);
    await book.forget("😭");
    const after = await book.brief({ since: 1 });
    expect(after).toMatchObject({ kind: "full", revision: 3 });
    expect(after.text).not.toContain("😭");
  });

  test("the context holds back what must stay out of the reply, without a new revision", async () => {
    const { book } = await vault();
    await book.observe("c1", "no cap");
    await book.observe("c2", "no cap");
    const r = await book.brief({ context: "lol what's for dinner" });
    const medical = await book.brief({ context: "my doctor changed the dosage", since: r.revision });
    expect(medical).toMatchObject({ kind: "ack", revision: r.revision, context: ["medical"] });
    expect(medical.text).toContain('Not in this reply: "no cap"');
  });
});

describe("the vault's own dictionary", () => {
  test("its entries are noticed; an edit is read again", async () => {
    const { root, book } = await vault();
    const file = path.join(root, "style-dictionary.yaml");
    fs.writeFileSync(file, "entries:\n  - term: tiny but mighty\n    kind: catchphrase\n");
    await book.observe("c1", "tiny but mighty");
    expect(await habit(book, "tiny but mighty")).toMatchObject({ kind: "catchphrase", source: "user" });
    fs.writeFileSync(file, "entries:\n  - term: onwards and upwards\nignore: [ngl]\n");
    fs.utimesSync(file, new Date(T0 + 1000), new Date(T0 + 1000));
    await book.observe("c1", "onwards and upwards, ngl");
    const signals = (await book.list()).map((h) => h.signal);
    expect(signals).toContain("onwards and upwards");
    expect(signals).not.toContain("ngl");
    expect((await book.dictionary()).user).toBe(1);
  });

  test("a broken file is said once and never stops observation", async () => {
    const { root, book, warnings } = await vault();
    fs.writeFileSync(path.join(root, "style-dictionary.yaml"), "entries: [unclosed\n");
    await book.observe("c1", "no cap");
    await book.observe("c1", "ngl");
    expect((await book.list()).map((h) => h.signal)).toEqual(expect.arrayContaining(["no cap", "ngl"]));
    expect(warnings.filter((w) => w.includes("style-dictionary.yaml: not valid YAML"))).toHaveLength(1);
    expect((await book.dictionary()).problems[0]).toContain("only the built-in dictionary is used");
  });
});
