/**
 * A few lines of real use under each command's help (`lorecards COMMAND --help`, `lorecards help
 * COMMAND`), and under the list of commands: citty renders the flags, these show them put together.
 * Every line here is a command that works as written on a vault made by `lorecards init`.
 */

const EXAMPLES: Record<string, string[]> = {
  "": [
    "lorecards init ~/cards",
    'lorecards new people Marguerite --keywords "Marguerite, Maggie" --section "who=My neighbour." --vault ~/cards',
    'lorecards try "I ran into Maggie at the corner cafe" --vault ~/cards',
    "lorecards gateway --upstream https://api.openai.com --vault ~/cards",
    "lorecards help try",
  ],
  init: ["lorecards init ~/cards", "lorecards init ~/cards --guide"],
  list: ["lorecards list", "lorecards list --kind people --json"],
  read: ["lorecards read Alice", "lorecards read people/Alice --json"],
  new: [
    'lorecards new people Marguerite --keywords "Marguerite, Maggie" --section "who=My neighbour. Keeps bees."',
    "printf '## meaning\\nTo throw.\\n' | lorecards new slang yeet --keywords yeet --input -",
  ],
  update: [
    'lorecards update Alice recent "Moved to Paris in May."',
    "lorecards update Alice who --input who.md",
  ],
  archive: ["lorecards archive Alice"],
  restore: ["lorecards restore Alice", "lorecards restore people/Alice~2"],
  try: [
    'lorecards try "how did the Friday deploy go?"',
    'lorecards try "and then?" --turns \'[{"role":"user","text":"Alice called"}]\' --json',
    'lorecards try "the Lyon trip" --scan-depth 0 --show-context',
  ],
  explain: [
    'lorecards explain "how did the payments team do?" --card Alice',
    'lorecards explain "and then?" --json',
  ],
  check: ["lorecards check", "lorecards check --json"],
  stats: ["lorecards stats --days 3", "lorecards stats --cards --json"],
  refresh: ["lorecards refresh", "lorecards refresh --all"],
  gateway: [
    "lorecards gateway --upstream https://api.openai.com",
    "lorecards gateway --upstream https://api.anthropic.com --scan-depth 5 --budget 1200",
    'lorecards gateway --upstream https://api.openai.com --host 0.0.0.0 --token "$(openssl rand -hex 16)"',
    "lorecards gateway --upstream https://api.openai.com --tenants /srv/lorecards/tenants.yaml",
  ],
  hook: ["lorecards hook --vault ~/cards   (in Claude Code's settings.json, as the UserPromptSubmit hook)"],
  mcp: ["claude mcp add lorecards -- lorecards mcp --vault ~/cards", "lorecards mcp --http --port 8767"],
  ui: ["lorecards ui", 'lorecards ui --host 0.0.0.0 --token "$(openssl rand -hex 16)" --show-token'],
  import: ["lorecards import book.json", "lorecards import Seraphina.png --kind people --json"],
  export: ["lorecards export out.json", "lorecards export card.png --card base.png"],
  repair: ["lorecards repair --dry-run"],
  style: [
    "lorecards style",
    "lorecards style pin <id>",
    'lorecards style brief --context "the current message"',
  ],
  history: ["lorecards history Alice", "lorecards history Alice --version 12"],
  revert: ["lorecards revert Alice --version 7"],
  backup: ["lorecards backup", "lorecards backup --to /mnt/usb/lorecards"],
  "restore-backup": ["lorecards restore-backup backup.tar.gz --to ~/cards-restored"],
  tenant: [
    "lorecards tenant add ann --tenants /srv/lorecards/tenants.yaml",
    "lorecards tenant list --tenants /srv/lorecards/tenants.yaml --json",
    "lorecards tenant token ann --tenants /srv/lorecards/tenants.yaml",
  ],
};

/**
 * `usage` with the EXAMPLES section of `command` ("" for the list of commands) after a blank line,
 * however the usage ended (a command's ends with one, the list of commands does not).
 */
export function withExamples(usage: string, command: string): string {
  const lines = EXAMPLES[command];
  if (!lines || lines.length === 0) return usage;
  return `${usage.replace(/\n*$/, "\n")}\nEXAMPLES\n\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}

/** Every command that has examples (a test holds each to a command that exists). */
export function commandsWithExamples(): string[] {
  return Object.keys(EXAMPLES).filter((c) => c !== "");
}
