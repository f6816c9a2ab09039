// `lorecards gateway --upstream URL`: the injecting proxy. Flags map 1:1 onto GatewayOptions; the
// command resolves only when the gateway shuts down (SIGINT/SIGTERM).
import { DEFAULTS } from "../defaults.ts";
import { warnOnStderr } from "../errors.ts";
import { baseUrls, startGateway } from "../gateway/index.ts";
import {
  allowHostArg,
  budgetArg,
  framingArg,
  gatewayReinjectArg,
  injectArg,
  learnArg,
  listenArgs,
  logArg,
  recallArgs,
  recallFlags,
  scanDepthArg,
  styleBriefArg,
} from "./_args.ts";
import { backupsArg, startDailyBackups } from "./_backups.ts";
import { startHookServer } from "./_hook-server.ts";
import { selfRefresher } from "./_refresher.ts";
import {
  defineCommand,
  hostList,
  portNumber,
  printJsonLine,
  tokenFrom,
  untilShutdown,
  vaultArg,
  wholeNumber,
} from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { learningFromEnv, styleOptions } from "./_style-clock.ts";
import { tenantPoolOf, tenantsArgs, tenantsFileOf } from "./_tenants.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const gatewayCommand = defineCommand({
  meta: { name: "gateway", description: "the injecting proxy in front of an OpenAI/Anthropic API" },
  args: {
    upstream: {
      type: "string",
      required: true,
      description: "the API this sits in front of, e.g. https://api.openai.com",
      valueHint: "URL",
    },
    ...listenArgs("the proxy", DEFAULTS.gatewayPort),
    ...injectArg,
    ...scanDepthArg,
    ...gatewayReinjectArg,
    ...budgetArg,
    ...recallArgs,
    ...framingArg,
    token: {
      type: "string",
      description: "require X-Lorecards-Token on every request; mandatory off localhost",
    },
    ...allowHostArg("extra host names clients may reach the gateway by on loopback (comma-separated)"),
    ...logArg("record surfacings in hits.jsonl", "do not write hits.jsonl"),
    "prompt-cache-key": {
      type: "boolean",
      description:
        "give the requests it writes OpenAI's prompt_cache_key (default: only when the upstream is api.openai.com)",
      negativeDescription: "never add prompt_cache_key",
    },
    ...learnArg,
    ...styleBriefArg,
    ...backupsArg,
    ...storeArg,
    ...tenantsArgs(""),
    ...vaultArg,
    json: {
      type: "boolean",
      description:
        "print one JSON line {url, base_url, openai_base_url, anthropic_base_url, upstream, vault} once listening",
    },
  },
  async run({ args }) {
    const tenants = tenantsFileOf(args);
    const gateway = startGateway({
      vaultRoot: vaultPath(args),
      upstream: args.upstream,
      host: args.host,
      port: portNumber(args.port),
      inject: args.inject,
      window: wholeNumber(args["scan-depth"], "--scan-depth"),
      reinjectAfter: wholeNumber(args["reinject-after"], "--reinject-after"),
      budget: wholeNumber(args.budget, "--budget"),
      framing: args.framing === undefined ? undefined : unescapeFlag(args.framing),
      token: tokenFrom(args),
      allowHosts: hostList(args["allow-host"]),
      log: args.log !== false,
      promptCacheKey: args["prompt-cache-key"],
      learn: args.learn !== false && learningFromEnv(),
      style: styleOptions(),
      styleBrief: args["style-brief"] === true,
      recall: recallFlags(args),
      // Tenants' vaults are each their own: none is made, and each is read in this process.
      engine:
        tenants === undefined
          ? { create: isDefaultVault(args), refresher: selfRefresher(vaultPath(args)) }
          : undefined,
      state: namedStore(args),
      tenants,
      tenantPool: tenantPoolOf(args),
    });
    const engine = gateway.engine;
    const hooks =
      engine &&
      (await startHookServer({
        vaultRoot: vaultPath(args),
        engine,
        state: namedStore(args),
        warn: warnOnStderr,
      }));
    // Listen for the stop signals before saying "ready": a supervisor may stop us the moment it reads it.
    let backups: ReturnType<typeof startDailyBackups>;
    const stopped = untilShutdown(async () => {
      await backups?.stop();
      await hooks?.close();
      return gateway.close();
    });
    const urls = baseUrls(gateway.url);
    if (args.json) {
      const ready = {
        url: gateway.url,
        base_url: urls.openai,
        openai_base_url: urls.openai,
        anthropic_base_url: urls.anthropic,
        upstream: args.upstream,
        ...(tenants === undefined ? { vault: vaultPath(args) } : { tenants }),
      };
      printJsonLine(ready);
    } else {
      const serving = tenants === undefined ? "" : ` (the tenants of ${tenants})`;
      process.stderr.write(`lorecards gateway: ${gateway.url} → ${args.upstream}${serving}\n`);
      process.stderr.write(
        `  OpenAI clients' base URL (openai SDK, Codex, opencode, SillyTavern): ${urls.openai}\n`,
      );
      process.stderr.write(
        `  Anthropic clients' base URL (Claude Code, Anthropic SDK):            ${urls.anthropic}\n`,
      );
    }
    if (tenants === undefined) backups = startDailyBackups(vaultPath(args), args);
    await stopped;
  },
});

/** `--framing 'Notes:\n\n'` means newlines: a shell does not turn `\n` into one. */
function unescapeFlag(value: string): string {
  return value.replace(/\\(n|t|\\)/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : "\\"));
}
