// The tenants file as data: what is served, what is passed over and why (src/tenants/_parse.ts).
import { describe, expect, test } from "bun:test";
import { parseTenants, tokenHash } from "../../src/tenants/_parse.ts";

const HASH = tokenHash("a-token-of-ann-0000000000");
const OTHER = tokenHash("a-token-of-bob-0000000000");

describe("the tenants file", () => {
  test("a tenant with a vault and a token hash is served, its name lower-cased and its vault made absolute", () => {
    const { tenants, warnings } = parseTenants(
      `tenants:\n  Ann:\n    vault: vaults/ann\n    token_sha256: ${HASH.toUpperCase()}\n    requests_per_minute: 60\n    conversations: 20\n`,
      "/srv/lc",
    );
    expect(warnings).toEqual([]);
    expect(tenants).toEqual([
      {
        name: "ann",
        vault: "/srv/lc/vaults/ann",
        tokenSha256: HASH,
        limits: { requestsPerMinute: 60, conversations: 20 },
      },
    ]);
  });

  test("a tenant without a vault gets the folder named after it beside the file", () => {
    const { tenants } = parseTenants(`tenants:\n  bob:\n    token_sha256: ${OTHER}\n`, "/srv/lc");
    expect(tenants[0]?.vault).toBe("/srv/lc/bob");
  });

  test.each([
    ["no token", "vault: x", "token_sha256 must be"],
    ["a token in clear", "token_sha256: hunter2", "token_sha256 must be"],
    ["an unknown setting", `token_sha256: ${HASH}\n    tokn: x`, 'unknown setting "tokn"'],
    [
      "a limit that is no count",
      `token_sha256: ${HASH}\n    requests_per_minute: lots`,
      "requests_per_minute",
    ],
    ["a limit of 0", `token_sha256: ${HASH}\n    conversations: 0`, "conversations"],
    ["an empty store", `token_sha256: ${HASH}\n    store: ""`, "store must be"],
  ])("an entry with %s is not served, and the warning names it", (_, body, said) => {
    const { tenants, warnings } = parseTenants(`tenants:\n  ann:\n    ${body}\n`, "/x");
    expect(tenants).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tenant "ann"');
    expect(warnings[0]).toContain(said);
  });

  test.each([
    ["../up", "a tenant's name"],
    ["with space", "a tenant's name"],
    ["-dash", "a tenant's name"],
  ])("the name %p is refused: it could not stand in a path prefix", (name, said) => {
    const { tenants, warnings } = parseTenants(`tenants:\n  "${name}":\n    token_sha256: ${HASH}\n`, "/x");
    expect(tenants).toEqual([]);
    expect(warnings[0]).toContain(said);
  });

  test("two entries of one name (in any case) are both left out, so neither is served wrongly", () => {
    const { tenants, warnings } = parseTenants(
      `tenants:\n  ann:\n    token_sha256: ${HASH}\n  ANN:\n    token_sha256: ${OTHER}\n`,
      "/x",
    );
    expect(tenants).toEqual([]);
    expect(warnings.join("\n")).toContain("named twice");
  });

  test("two tenants sharing one token are both left out", () => {
    const { tenants, warnings } = parseTenants(
      `tenants:\n  ann:\n    token_sha256: ${HASH}\n  bob:\n    token_sha256: ${HASH}\n`,
      "/x",
    );
    expect(tenants).toEqual([]);
    expect(warnings).toHaveLength(2);
  });

  test("an empty file serves no one; text that is not YAML throws for the caller to keep what it had", () => {
    expect(parseTenants("", "/x")).toEqual({ tenants: [], warnings: [] });
    expect(parseTenants("tenants:\n", "/x")).toEqual({ tenants: [], warnings: [] });
    expect(() => parseTenants("tenants: [\n", "/x")).toThrow("not valid YAML");
    expect(() => parseTenants("tenants: [a, b]\n", "/x")).toThrow("a mapping of name: settings");
  });
});
