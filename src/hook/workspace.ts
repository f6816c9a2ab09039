/**
 * Where the agent works, as boot recall reads it (docs/HOOK-AND-MCP.md "Boot recall"): the name of
 * the session's working folder, and the repository's name from the URL of the folder's first git
 * remote. Git is asked (`git config --local --get-regexp`), nothing in the folder is read by us, and
 * a folder that is no repository, a git that is missing or slow, gives the folder's name alone. The
 * names become one text recall scans like a message: each as written, and with `-`, `_` and `.`
 * read as spaces, so `payments_team` finds a card keyed "payments team".
 */
import path from "node:path";

/** What asks git for the folder's remote URLs, in its config's order (injected by tests). */
export type AskGit = (cwd: string) => string[];

/** Git gets this long to answer; a session never waits longer for its boot block. */
const GIT_TIMEOUT_MS = 1500;

export const askGit: AskGit = (cwd) => {
  try {
    const run = Bun.spawnSync(
      ["git", "-C", cwd, "config", "--local", "--get-regexp", "^remote\\..*\\.url$"],
      {
        stdin: "ignore",
        stderr: "ignore",
        timeout: GIT_TIMEOUT_MS,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      },
    );
    if (run.exitCode !== 0) return [];
    return run.stdout
      .toString()
      .split("\n")
      .map((line) => line.slice(line.indexOf(" ") + 1).trim())
      .filter((url) => url !== "");
  } catch {
    return [];
  }
};

/** `git@github.com:acme/payments-api.git`, `https://…/payments-api/` → `payments-api`. */
export function repositoryName(url: string): string {
  const last = url
    .trim()
    .replace(/[/\\]+$/, "")
    .split(/[/\\:]/)
    .pop();
  return (last ?? "").replace(/\.git$/i, "");
}

export interface Workspace {
  folder: string;
  repository?: string;
}

export function workspaceOf(cwd: string | undefined, ask: AskGit = askGit): Workspace | undefined {
  if (!cwd) return undefined;
  const folder = path.basename(path.resolve(cwd));
  const url = ask(cwd)[0];
  const repository = url === undefined ? "" : repositoryName(url);
  if (folder === "" && repository === "") return undefined;
  return { folder, ...(repository !== "" && repository !== folder ? { repository } : {}) };
}

/** The names as recall reads them: each as written, and with its separators read as spaces. */
export function workspaceText(w: Workspace): string {
  const names = [w.folder, w.repository ?? ""].filter((n) => n !== "");
  const spaced = names.map((n) => n.replace(/[-_.]+/g, " ").trim());
  return [...new Set([...names, ...spaced])].join("\n");
}
