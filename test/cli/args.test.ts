// The CLI's flags: every default in `--help` comes from the one defaults table (citty prints it), enum
// flags refuse other values, and citty's own argument errors are usage errors by their code.
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { type ArgsDef, type CommandDef, renderUsage } from "citty";
import { gatewayCommand } from "../../src/cli/gateway.ts";
import { hookCommand } from "../../src/cli/hook.ts";
import { runCli } from "../../src/cli/index.ts";
import { mcpCommand } from "../../src/cli/mcp.ts";
import { tryCommand } from "../../src/cli/try.ts";
import { uiCommand } from "../../src/cli/ui.ts";
import { DEFAULTS } from "../../src/defaults.ts";

const plain = async (cmd: CommandDef<ArgsDef>) => (await renderUsage(cmd)).replace(/\u001b\[[0-9;]*m/g, "");

describe("defaults in --help", () => {
  test.each([
    [
      "gateway",
      gatewayCommand,
      [
        `(default: settings.yaml, else ${DEFAULTS.budget};`,
        `(Default: ${DEFAULTS.scanDepth})`,
        "turns before a card still in context may go in again (default: never; 0 = every time)",
        `(Default: ${DEFAULTS.gatewayPort})`,
        `(Default: ${DEFAULTS.host})`,
        "--inject=<user|system|index>",
        JSON.stringify(DEFAULTS.framing),
      ],
    ],
    ["hook", hookCommand, [`else ${DEFAULTS.budget};`, `(Default: ${DEFAULTS.reinjectAfter})`]],
    ["try", tryCommand, [`else ${DEFAULTS.budget};`, `(Default: ${DEFAULTS.scanDepth})`]],
    ["ui", uiCommand, [`(Default: ${DEFAULTS.uiPort})`, `(Default: ${DEFAULTS.gatewayPort})`]],
    ["mcp", mcpCommand, [`default ${DEFAULTS.mcpPort}`, `default ${DEFAULTS.host}`]],
  ] as const)("%s says the table's defaults", async (_name, cmd, said) => {
    const help = await plain(cmd as CommandDef<ArgsDef>);
    for (const s of said) expect(help).toContain(s);
  });
});

describe("the recall flags every surface takes", () => {
  test.each([
    ["gateway", gatewayCommand, []],
    ["hook", hookCommand, []],
    ["try", tryCommand, ["--seed"]],
  ] as const)(
    "%s offers --char, --user, --budget-tokens and --reach, defaults said in words",
    async (_n, cmd, more) => {
      const help = await plain(cmd as CommandDef<ArgsDef>);
      for (const flag of ["--char", "--user", "--budget-tokens", "--reach=<one-hop|named>", ...more]) {
        expect(help).toContain(flag);
      }
      expect(help).toContain(`else ${DEFAULTS.reach})`);
    },
  );
});

describe("usage errors", () => {
  let err = "";
  let out = "";
  beforeEach(() => {
    err = "";
    out = "";
    spyOn(process.stderr, "write").mockImplementation((s) => {
      err += String(s);
      return true;
    });
    spyOn(process.stdout, "write").mockImplementation((s) => {
      out += String(s);
      return true;
    });
  });
  afterEach(() => {
    (process.stderr.write as unknown as { mockRestore(): void }).mockRestore();
    (process.stdout.write as unknown as { mockRestore(): void }).mockRestore();
  });

  test.each([
    [
      ["gateway", "--upstream", "http://127.0.0.1:9", "--inject", "sideways"],
      "--inject (sideways). Expected one of: user, system",
    ],
    [["gateway"], "Missing required argument: --upstream"],
    [
      ["export", "out.txt", "--format", "docx"],
      "Expected one of: st, lorebook_v3, card-json, card-png, charx",
    ],
  ])("%p exits 2, in plain text, and is `usage` under --json", async (argv, message) => {
    expect(await runCli([...argv, "--json"])).toBe(2);
    expect(err).toContain(message);
    expect(err).not.toContain("\u001b[");
    expect(JSON.parse(out)).toEqual({ error: "usage", detail: expect.stringContaining(message) });
  });
});
