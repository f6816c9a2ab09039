/**
 * Folders a note app keeps for itself inside a folder of notes, which are not notes: Obsidian's
 * templates folder (its core Templates plugin's `.obsidian/templates.json`, `{"folder": "Templates"}`,
 * and the Templater plugin's `templates_folder`). A template is a skeleton with placeholders
 * (`{{title}}`, `<% tp.date.now() %>`): read as a card, "Templates/Person.md" would fire on every
 * "person". The folder is read from the app's own settings, never guessed from its name; the vault
 * skips it as it skips hidden folders, and `check` lists it with this reason.
 */
import path from "node:path";
import { readPlain } from "../plain-file.ts";

export interface SkippedDir {
  /** Vault-relative, `/`-separated, no leading or trailing slash. */
  dir: string;
  reason: string;
}

/** Where each note app says its templates live: the settings file and the key holding the folder. */
const TEMPLATE_SETTINGS = [
  { file: ".obsidian/templates.json", key: "folder", app: "Obsidian's templates folder" },
  {
    file: ".obsidian/plugins/templater-obsidian/data.json",
    key: "templates_folder",
    app: "Templater's templates folder",
  },
];

/** A folder setting as a vault-relative path, or undefined when it is none (empty, outside, absolute). */
function relativeDir(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const dir = path.posix.normalize(value.replaceAll("\\", "/").trim()).replace(/^\.?\/+|\/+$/g, "");
  if (dir === "" || dir === "." || dir.startsWith("..") || path.posix.isAbsolute(dir)) return undefined;
  return dir;
}

/** The folders of `root` that its note app keeps for templates; none when no app says so. */
export function noteAppFolders(root: string): SkippedDir[] {
  const out: SkippedDir[] = [];
  for (const s of TEMPLATE_SETTINGS) {
    let settings: unknown;
    try {
      settings = JSON.parse(readPlain(path.join(root, s.file), { name: s.file }));
    } catch {
      continue; // absent or unreadable: the app says nothing
    }
    const dir = relativeDir((settings as Record<string, unknown> | null)?.[s.key]);
    if (dir !== undefined && !out.some((o) => o.dir === dir))
      out.push({ dir, reason: `${s.app} (${s.file}): templates, not notes` });
  }
  return out;
}

/** Whether the vault-relative folder `dir` is one of `skipped` or inside one. */
export function inSkippedDir(
  skipped: readonly SkippedDir[] | undefined,
  dir: string,
): SkippedDir | undefined {
  return skipped?.find((s) => dir === s.dir || dir.startsWith(`${s.dir}/`));
}
