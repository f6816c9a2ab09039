// `lorecards init [DIR]`: the kind directories plus one example card per kind. Never overwrites.
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
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    const root = resolveVaultPath(args.dir ?? args.vault, process.env);
    const result = await initVault(root);
    if (args.json) printJson({ vault: root, created: result.created });
    else if (result.created.length === 0)
      print(`${root} already has everything init would create; nothing changed.`);
    else print([`Vault ready at ${root}`, ...result.created.map((p) => `  created ${p}`)].join("\n"));
    return 0;
  },
});
