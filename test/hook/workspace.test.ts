// Boot recall's reading of where the agent works (hook/workspace.ts): the folder's name, the first git
// remote's repository name, and the text recall scans for them.
import { describe, expect, test } from "bun:test";
import { repositoryName, workspaceOf, workspaceText } from "../../src/hook/workspace.ts";

describe("the repository's name from a remote URL", () => {
  test.each([
    ["git@github.com:acme/payments-api.git", "payments-api"],
    ["https://github.com/acme/payments-api.git", "payments-api"],
    ["https://gitlab.example.org/group/sub/Payments/", "Payments"],
    ["ssh://git@host:2222/srv/repos/ledger.GIT", "ledger"],
    ["/srv/git/notes", "notes"],
    ["C:\\repos\\tide-tables.git", "tide-tables"],
  ])("%s is %s", (url, name) => {
    expect(repositoryName(url)).toBe(name);
  });
});

describe("the workspace", () => {
  test("the folder's name and the first remote's repository", () => {
    const w = workspaceOf("/home/me/payments team", () => [
      "git@github.com:acme/payments-api.git",
      "https://x/other.git",
    ]);
    expect(w).toEqual({ folder: "payments team", repository: "payments-api" });
  });

  test("no remote (or no repository, or no git): the folder's name alone", () => {
    expect(workspaceOf("/home/me/notes/", () => [])).toEqual({ folder: "notes" });
  });

  test("a repository named as its folder is said once; no cwd is no workspace", () => {
    expect(workspaceOf("/src/ledger", () => ["https://h/ledger.git"])).toEqual({ folder: "ledger" });
    expect(workspaceOf(undefined, () => [])).toBeUndefined();
  });

  test("the text recall scans: each name as written, and with its separators as spaces", () => {
    expect(workspaceText({ folder: "payments_team", repository: "payments-api" }).split("\n")).toEqual([
      "payments_team",
      "payments-api",
      "payments team",
      "payments api",
    ]);
  });
});
