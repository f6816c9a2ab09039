// `lorecards tenant add|remove|list|token NAME --tenants FILE`: the tenants a server of many vaults
// serves (docs/DEPLOYMENT.md "One process with many tenants"). A new tenant's token is printed once
// (stdout, or `token` under --json) and only its SHA-256 is kept; a running `gateway`, `ui` or
// `mcp --http` given the same file serves the change on its next request.
import path from "node:path";
import { LoreError } from "../errors.ts";
import {
  addTenant,
  listTenants,
  removeTenant,
  renewToken,
  TENANTS_FILE,
  type Tenant,
} from "../tenants/index.ts";
import { defineCommand, jsonArg, print, printJson, wholeNumber } from "./_shared.ts";

const ACTIONS = ["add", "remove", "list", "token"] as const;
type Action = (typeof ACTIONS)[number];

export const tenantsArg = {
  tenants: {
    type: "string",
    description: `the tenants file (default: $LORECARDS_TENANTS, then ./${TENANTS_FILE})`,
    valueHint: "FILE",
  },
} as const;

/** The tenants file: the flag, else $LORECARDS_TENANTS, else tenants.yaml in the working folder. */
export function tenantsFile(args: { tenants?: string }): string {
  const given = [args.tenants, process.env.LORECARDS_TENANTS].find((v) => v !== undefined && v.trim() !== "");
  return path.resolve(given ?? TENANTS_FILE);
}

function shown(t: Tenant) {
  return {
    name: t.name,
    vault: t.vault,
    ...(t.store && { store: t.store.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1@") }),
    ...(t.limits.requestsPerMinute && { requests_per_minute: t.limits.requestsPerMinute }),
    ...(t.limits.conversations && { conversations: t.limits.conversations }),
  };
}

export const tenantCommand = defineCommand({
  meta: {
    name: "tenant",
    description: "the tenants one server of many vaults serves: add, remove, list, token",
  },
  args: {
    action: { type: "positional", required: true, description: ACTIONS.join(", "), valueHint: "ACTION" },
    name: { type: "positional", required: false, description: "the tenant (add, remove, token)" },
    ...tenantsArg,
    "tenant-vault": {
      type: "string",
      description:
        "add: the tenant's vault folder (default: a folder named after it beside the tenants file)",
      valueHint: "DIR",
    },
    "tenant-store": {
      type: "string",
      description:
        "add: the tenant's own state store URL (default: the server's --store, else its vault's state.db)",
      valueHint: "URL",
    },
    "requests-per-minute": {
      type: "string",
      description: "add: the most requests a minute the tenant may send",
    },
    conversations: { type: "string", description: "add: the most conversations its state keeps" },
    ...jsonArg,
  },
  async run({ args }) {
    const action = args.action as Action;
    if (!ACTIONS.includes(action))
      throw new LoreError("usage", `unknown action "${args.action}" (use ${ACTIONS.join(", ")})`);
    const file = tenantsFile(args);
    if (action === "list") {
      const { tenants, warnings } = listTenants(file);
      if (args.json) {
        printJson({ file, tenants: tenants.map(shown), warnings });
        return 0;
      }
      print(tenants.map((t) => `${t.name}\t${t.vault}`).join("\n") || `no tenant in ${file}`);
      for (const w of warnings) process.stderr.write(`lorecards: ${file}: ${w}\n`);
      return 0;
    }
    if (!args.name) throw new LoreError("usage", `tenant ${action} needs the tenant's name`);
    if (action === "add") {
      const { tenant, token, created } = await addTenant(file, args.name, {
        vault: args["tenant-vault"],
        store: args["tenant-store"],
        requestsPerMinute: wholeNumber(args["requests-per-minute"], "--requests-per-minute") || undefined,
        conversations: wholeNumber(args.conversations, "--conversations") || undefined,
      });
      if (args.json) {
        printJson({ ...shown(tenant), token, vault_created: created, file });
        return 0;
      }
      print(token);
      process.stderr.write(
        `lorecards: tenant ${tenant.name} added to ${file}, vault ${tenant.vault}${created ? " (made)" : ""}.\n` +
          "  Its token is above, shown this once: give it to the tenant (X-Lorecards-Token, or Authorization: Bearer for the editor and MCP).\n",
      );
      return 0;
    }
    if (action === "token") {
      const token = await renewToken(file, args.name);
      if (args.json) {
        printJson({ name: args.name.toLowerCase(), token, file });
        return 0;
      }
      print(token);
      process.stderr.write(
        `lorecards: tenant ${args.name.toLowerCase()} has a new token (above); the old one no longer works.\n`,
      );
      return 0;
    }
    const tenant = await removeTenant(file, args.name);
    if (args.json) {
      printJson({ removed: tenant.name, vault: tenant.vault, file });
      return 0;
    }
    print(`removed tenant ${tenant.name}; its vault ${tenant.vault} is left where it is`);
    return 0;
  },
});
