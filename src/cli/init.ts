// `lorecards init [DIR] [--guide]`: in a folder with no card yet, the kind directories and one example
// card per kind; with --guide a starter guide.md for agents. Never overwrites.
import { initVault, resolveVaultPath } from "../vault/index.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";

export const initCommand = defineCommand({
  meta: { name: "init", description: "create a vault with one example card per kind" },
  args: {
    dir: {
      type: "positional",
      description: "where to create the vault (default: --vault, then the default vault)",
      required: false,
    },
    guide: {
      type: "boolean",
      description: "also write guide.md, the guide an agent's session starts with (README: The boot block)",
    },
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const root = resolveVaultPath(args.dir ?? args.vault, process.env);
    const result = await initVault(root, { guide: args.guide === true });
    if (args.json) printJson({ vault: root, created: result.created, examples: result.examples });
    else {
      // Examples go only into a folder with no card yet: said, so nobody looks for them.
      const own = result.examples ? "" : " (it holds cards already: no example card, no empty folder)";
      if (result.created.length === 0)
        print(`${root} already has everything init would create${own}; nothing changed.`);
      else print([`Vault ready at ${root}${own}`, ...result.created.map((p) => `  created ${p}`)].join("\n"));
    }
    return 0;
  },
});
