/**
 * Opening and creating vaults. `initVault` writes, into a folder that holds no card yet, the kind
 * directories and one example card per kind, never overwriting a file that exists and never writing
 * through a kind directory that is a link.
 */
import fs from "node:fs";
import path from "node:path";
import { loadKindsConfig, serializeCard } from "../card/index.ts";
import { describeError, LoreError } from "../errors.ts";
import { madeStateDir } from "../state-dir.ts";
import { EXAMPLES, exampleBody } from "./_examples.ts";
import { atomicCreate } from "./_fs.ts";
import { linkBelow, stateIn } from "./_links.ts";
import { GUIDE_FILE, STARTER_GUIDE } from "./guide.ts";
import { markdownFiles } from "./markdown-files.ts";
import { kindDir, relPath, STATE_DIR, type Vault } from "./paths.ts";

export interface OpenOptions {
  /** Create the vault (with the example cards) when the directory does not exist yet. */
  create?: boolean;
}

/** Open the vault at `root`; with `create`, a missing vault is initialised first. */
export function openVault(root: string, opts: OpenOptions = {}): Vault {
  const abs = path.resolve(root);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(abs);
  } catch {}
  if (stat === undefined) {
    if (!opts.create)
      throw new LoreError(
        "not_found",
        // Any folder is a vault: init's example cards would fire in a book imported next (Alice, the deploy).
        `no vault at ${abs} (any folder will do: mkdir it; \`lorecards init ${abs}\` adds example cards)`,
      );
    initVault(abs);
  } else if (!stat.isDirectory()) {
    throw new LoreError("invalid_input", `the vault path is not a directory: ${abs}`);
  }
  return { root: abs, kinds: loadKindsConfig(abs) };
}

function ensureDir(dir: string, created: string[], label: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(dir, { recursive: true });
  created.push(label);
}

/**
 * Create the vault directories and example cards, and with `guide` a starter guide.md (the boot
 * block's, for agents); returns the created paths (relative, `/`-separated), and `examples: false`
 * when the folder held cards already. Never overwrites.
 */
export function initVault(
  root: string,
  options: { guide?: boolean } = {},
): { root: string; created: string[]; examples: boolean } {
  const abs = path.resolve(root);
  const created: string[] = [];
  let examples = false;
  // Said as opening it says it (not as the read of kinds.yaml inside a file that fails next).
  if (fs.existsSync(abs) && !fs.statSync(abs).isDirectory())
    throw new LoreError("invalid_input", `the vault path is not a directory: ${abs}`);
  try {
    ensureDir(abs, created, ".");
    const vault: Vault = { root: abs, kinds: loadKindsConfig(abs) };
    // A folder of someone's cards gets no examples: Alice and the Friday deploy would fire in their
    // conversations (a new user's `init` on their notes did just that). Nor empty kind folders beside
    // their own (`people/` next to `Characters/`): a card's folder is made when one is written.
    examples = markdownFiles(abs).next().done === true;
    const state = stateIn(abs);
    if (!fs.existsSync(state)) {
      ensureDir(state, [], STATE_DIR);
      madeStateDir(state);
    }
    for (const kind of examples ? vault.kinds.kinds : []) {
      const dir = kindDir(vault, kind);
      // A kind folder that is a symbolic link is never written through (check reports it).
      if (linkBelow(vault, dir) !== null) continue;
      if (kind.dir !== "") ensureDir(dir, created, `${kind.dir}/`);
      const example = examples ? EXAMPLES[kind.name] : undefined;
      if (!example) continue;
      const file = path.join(dir, `${example.key}.md`);
      const text = serializeCard({
        frontmatter: example.frontmatter,
        body: exampleBody(example, kind.sections),
      });
      if (atomicCreate(file, text)) created.push(relPath(vault, file));
    }
    if (options.guide && atomicCreate(path.join(abs, GUIDE_FILE), STARTER_GUIDE)) created.push(GUIDE_FILE);
  } catch (err) {
    if (err instanceof LoreError) throw err;
    // A path under a file (`init notes.txt/cards`): the path is wrong, not the disk.
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR")
      throw new LoreError(
        "invalid_input",
        `the vault path is not a directory: a folder above ${abs} is a file`,
      );
    throw new LoreError("io_error", `cannot create the vault at ${abs}: ${describeError(err)}`, {
      cause: err,
    });
  }
  return { root: abs, created, examples };
}

/** The ids (`kind/key`) of the example cards `init` writes: a vault holding only these is fresh. */
export function exampleIds(vault: Vault): Set<string> {
  return new Set(
    vault.kinds.kinds.flatMap((k) => (EXAMPLES[k.name] ? [`${k.name}/${EXAMPLES[k.name]!.key}`] : [])),
  );
}
