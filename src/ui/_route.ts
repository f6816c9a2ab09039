// An address per card: `#/people/Alice` opens Alice, `#/new/people` a new person card, and the bare page
// the list. Opening a card pushes an entry, so the browser's (and the phone's) Back goes back to the
// list instead of leaving the editor, and a card's address can be bookmarked or shared with its owner.
// In the fragment, not the path: the server serves one page, and the fragment never reaches a log.
// Each entry the page makes carries its place among the page's own (`history.state.at`): Back and Forward
// move the address before the page can ask to discard unsaved changes, and a person who answers Cancel
// is taken back to the entry of the card still open, the history as it was.

export type Route =
  | { view: "list" }
  | { view: "card"; kind: string; key: string }
  | { view: "new"; kind: string };

export function readRoute(hash = location.hash): Route {
  const parts = hash.replace(/^#\/?/, "").split("/");
  try {
    if (parts[0] === "new" && parts[1]) return { view: "new", kind: decodeURIComponent(parts[1]) };
    if (parts.length >= 2 && parts[0]) {
      return {
        view: "card",
        kind: decodeURIComponent(parts[0]),
        key: decodeURIComponent(parts.slice(1).join("/")),
      };
    }
  } catch {
    // a mangled address is the list
  }
  return { view: "list" };
}

export function routeHash(route: Route): string {
  if (route.view === "card") return `#/${encodeURIComponent(route.kind)}/${encodeURIComponent(route.key)}`;
  if (route.view === "new") return `#/new/${encodeURIComponent(route.kind)}`;
  return "";
}

/** Records `route` as a new entry (when it is not the one shown), keeping the path and the query. */
export function pushRoute(route: Route): void {
  const hash = routeHash(route);
  if (hash === location.hash || (hash === "" && location.hash === "")) return;
  history.pushState({ at: entryAt() + 1 }, "", `${location.pathname}${location.search}${hash}`);
}

/** Replaces the current entry (a card renamed or archived while shown). */
export function replaceRoute(route: Route): void {
  history.replaceState({ at: entryAt() }, "", `${location.pathname}${location.search}${routeHash(route)}`);
}

/** The place of the entry shown among the page's own (see numberEntry). */
export function entryAt(): number {
  const at = (history.state as { at?: unknown } | null)?.at;
  return typeof at === "number" ? at : 0;
}

/**
 * Gives the entry shown its place, unless it has one: the entry the page was opened on (0), or an
 * address typed in, which the browser puts right after the entry that was shown.
 */
export function numberEntry(at: number): void {
  if (typeof (history.state as { at?: unknown } | null)?.at !== "number") history.replaceState({ at }, "");
}
