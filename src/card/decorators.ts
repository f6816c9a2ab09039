/**
 * Character Card V3 decorators (card spec §9) → a card's rules. A decorator is a line `@@name value`
 * at the very start of an entry's content; a card keeps them verbatim in its `decorators:` list so
 * they go back out on export. `splitDecorators` is the one rule for where the leading block ends
 * (interop uses it on import); `readDecorators` resolves a block into RuleChanges:
 * - only the leading block of `@@` lines counts (a line starting with anything else ends it), and a
 *   CRLF line ending is just a line ending;
 * - of two decorators with one name the first wins, except `@@additional_keys`: every line is one
 *   more group of words of which one must be in the window;
 * - a decorator that is unknown or whose value is unusable falls to the `@@@` fallbacks that follow
 *   it, in order (spec §9.1); none usable → ignored with a warning, as is any unusable value;
 * - `@@activate` beats `@@dont_activate` whatever their order (§9.2.6);
 * - `@@depth N` places the card N messages back, unless `@@position` names another place (§9.3.1);
 * - `@@scan_depth N` is the card's window in messages (§9.4.1).
 * Decorators about greetings, user icons, the UI, token depths or a full context are recognised and
 * ignored (NOT_APPLICABLE): a proxy sees none of these.
 */
import { POSITIONS, type RuleChanges } from "./rules.ts";
import type { CardPlacement, PromptRole } from "./types.ts";

/** Recognised decorators that need what lorecards never sees; kept in the card, not acted on. */
export const NOT_APPLICABLE = [
  "is_greeting",
  "is_user_icon",
  "disable_ui_prompt",
  "instruct_depth",
  "reverse_depth",
  "reverse_instruct_depth",
  "instruct_scan_depth",
  "ignore_on_max_context",
] as const;

/**
 * The leading block of decorator lines of an entry's content (each without its line ending and
 * trailing spaces), and the content after it, byte for byte.
 */
export function splitDecorators(content: string): { decorators: string[]; rest: string } {
  const decorators: string[] = [];
  let at = 0;
  while (at < content.length) {
    const nl = content.indexOf("\n", at);
    const end = nl === -1 ? content.length : nl;
    const line = content.slice(at, end).replace(/\r$/, "");
    if (!line.startsWith("@@")) break;
    decorators.push(line.trimEnd());
    at = nl === -1 ? content.length : nl + 1;
  }
  return { decorators, rest: content.slice(at) };
}

/** What the block sets, and what a person should hear about. */
export interface DecoratorReading {
  changes: RuleChanges;
  warnings: string[];
  /** Names of the recognised decorators that were ignored as not applicable (NOT_APPLICABLE). */
  ignored: string[];
}

/** How one decorator line went: applied (or deliberately passed over), or why it could not be. */
type Outcome = "done" | "unknown" | { invalid: string };

interface State {
  applied: Set<string>;
  changes: RuleChanges;
  placement: Partial<CardPlacement>;
  activate: boolean;
  dontActivate: boolean;
  depth: number | null;
  ignored: string[];
}

const ROLES: readonly PromptRole[] = ["system", "user", "assistant"];
const COUNT = /^\+?\d+$/;
const LINE = /^(@@@?)([A-Za-z_]\w*)(?:\s+(.*))?$/;

function count(value: string, min: number): number | { invalid: string } {
  if (!COUNT.test(value) || Number(value) < min) return { invalid: `needs a whole number ≥ ${min}` };
  return Number(value);
}

function words(value: string): string[] | { invalid: string } {
  const list = value
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "");
  return list.length > 0 ? list : { invalid: "needs one or more comma-separated words" };
}

/** Set a value parsed by `parse`, or say why the value was unusable. */
function set<T>(got: T | { invalid: string }, apply: (v: T) => void): Outcome {
  if (typeof got === "object" && got !== null && "invalid" in got) return got;
  apply(got as T);
  return "done";
}

/** Apply one decorator to the state. */
function applyOne(s: State, name: string, value: string): Outcome {
  const c = s.changes;
  switch (name) {
    case "activate":
      s.activate = true;
      return "done";
    case "dont_activate":
      s.dontActivate = true;
      return "done";
    case "keep_activate_after_match":
      c.keepAfterMatch = true;
      return "done";
    case "dont_activate_after_match":
      c.dontAfterMatch = true;
      return "done";
    case "activate_only_after":
      return set(count(value, 0), (n) => (c.activateOnlyAfter = n));
    case "activate_only_every":
      return set(count(value, 1), (n) => (c.activateOnlyEvery = n));
    case "scan_depth":
      return set(count(value, 0), (n) => (c.scanMessages = n));
    case "depth":
      return set(count(value, 0), (n) => (s.depth = n));
    case "role": {
      const role = ROLES.find((r) => r === value.toLowerCase());
      return set(role ?? { invalid: `needs ${ROLES.join(", ")}` }, (r) => (s.placement.role = r));
    }
    case "position": {
      const at = POSITIONS.find((p) => p === value.toLowerCase());
      return set(at ?? { invalid: "needs a position name" }, (p) => (s.placement.position = p));
    }
    case "additional_keys":
      return set(words(value), (w) => (c.additionalKeys = [...(c.additionalKeys ?? []), w]));
    case "exclude_keys":
      return set(words(value), (w) => (c.excludeKeys = w));
    default:
      if ((NOT_APPLICABLE as readonly string[]).includes(name)) {
        if (!s.ignored.includes(name)) s.ignored.push(name);
        return "done";
      }
      return "unknown";
  }
}

/** Try a decorator and then its fallbacks; the first usable one counts. */
function applyGroup(
  s: State,
  group: { name: string; value: string; line: string }[],
  warn: (m: string) => void,
) {
  let unknown = true;
  for (const { name, value, line } of group) {
    // First of two wins; every @@additional_keys line adds a group.
    if (s.applied.has(name) && name !== "additional_keys") return;
    const outcome = applyOne(s, name, value);
    if (outcome === "done") {
      s.applied.add(name);
      return;
    }
    if (outcome !== "unknown") {
      unknown = false;
      warn(`decorator "${line}" ${outcome.invalid}; ignored`);
    }
  }
  if (unknown) {
    const more = group.length > 1 ? " and none of its @@@ fallbacks is either" : "";
    warn(`decorator "${group[0]!.line}" is not a known decorator${more}; ignored`);
  }
}

/**
 * Read a decorator block: the `decorators:` list of a card (one line per item; an item may hold
 * several lines) or an entry's content. Lines after the leading block are ignored with a warning.
 */
export function readDecorators(input: string | readonly string[]): DecoratorReading {
  const text = typeof input === "string" ? input : input.join("\n");
  const { decorators, rest } = splitDecorators(text);
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const s: State = {
    applied: new Set(),
    changes: {},
    placement: {},
    activate: false,
    dontActivate: false,
    depth: null,
    ignored: [],
  };
  const groups: { name: string; value: string; line: string }[][] = [];
  for (const line of decorators) {
    const m = LINE.exec(line);
    if (m === null) warn(`decorator "${line}" is not a @@name line; ignored`);
    else if (m[1] === "@@") groups.push([{ name: m[2]!.toLowerCase(), value: (m[3] ?? "").trim(), line }]);
    else if (groups.length > 0)
      groups.at(-1)!.push({ name: m[2]!.toLowerCase(), value: (m[3] ?? "").trim(), line });
    else warn(`decorator "${line}" is a @@@ fallback with no decorator before it; ignored`);
  }
  for (const group of groups) applyGroup(s, group, warn);
  const after = rest.trim();
  if (after !== "") {
    const first = after.split("\n", 1)[0]!.trim();
    warn(`decorators: "${first}" is not a @@ line, so it and every line after it are ignored`);
  }
  return { changes: finish(s), warnings, ignored: s.ignored };
}

function finish(s: State): RuleChanges {
  const changes = { ...s.changes };
  if (s.activate) changes.policy = "always";
  else if (s.dontActivate) changes.policy = "never";
  const placement = { ...s.placement };
  // @@position wins over @@depth, except when it names the at-depth place itself.
  if (s.depth !== null && (placement.position === undefined || placement.position === "at_depth")) {
    placement.position = "at_depth";
    placement.depth = s.depth;
  }
  if (Object.keys(placement).length > 0) changes.placement = placement;
  return changes;
}
